/**
 * `deploy preview bootstrap|deploy|list|destroy|prune|teardown`: preview deployments
 * (docs/previews.md). This file holds each subcommand's name, flags and help; its action sits
 * beside it, one file per subcommand. What they share lives in `deploy/preview/`.
 *
 * @module
 */
import type { Command } from "../../command.ts";
import type { MicrovmSeams } from "../../builders/create_builder.ts";
import { PREVIEW_ENV } from "../../config/names.ts";
import { FORCE_UNLOCK_FLAG } from "../../pipeline/publishing.ts";
import { NO_CACHE_FLAG } from "../../build_cache/no_cache_flag.ts";
import { DNS_PENDING_EXIT, previewBootstrap } from "./bootstrap.ts";
import { previewDeploy } from "./deploy.ts";
import { previewDestroy } from "./destroy.ts";
import { previewList } from "./list.ts";
import { previewPrune } from "./prune.ts";
import { previewTeardown } from "./teardown.ts";

/** The `preview bootstrap` command. */
export const previewBootstrapCommand: Command = {
  name: "preview bootstrap",
  summary: "create or update the shared preview stack",
  takesEnv: false,
  fixedEnv: PREVIEW_ENV,
  help: "Creates what is missing and fixes what drifted in the preview stack (environment\n" +
    "preview, config/preview.jsonc): bucket preview-<siteName>-<accountId>, log groups, origin\n" +
    "access control, the router function preview-<siteName>-router, a certificate for\n" +
    "*.<domain>, a distribution with alias *.<domain>, the bucket policy, the builder, and the\n" +
    "role preview-<siteName>-gh for githubRepo (domain and githubRepo are required). With a\n" +
    "Route 53 zone enclosing the domain it writes the DNS records itself; otherwise it prints\n" +
    `them and exits ${DNS_PENDING_EXIT} until the certificate is issued: re-run it then.`,
  run: previewBootstrap,
};

/** The `preview destroy` command. */
export const previewDestroyCommand: Command = {
  name: "preview destroy",
  summary: "remove one preview",
  args: ["id"],
  takesEnv: false,
  fixedEnv: PREVIEW_ENV,
  flags: {
    id: { type: "string", placeholder: "ID", description: "the preview id (or positional)" },
    "force-unlock": FORCE_UNLOCK_FLAG,
  },
  help: "Deletes every object under previews/<id>/ (the preview's files and record); the next\n" +
    "request to https://<id>.<domain> is not served. An unknown id deletes nothing (exit 0).\n" +
    "Waits up to 60 s for a running deploy of the preview; --force-unlock removes a lock whose\n" +
    "holder is gone. --json prints {id, deleted}.",
  run: previewDestroy,
};

/** The `preview list` command. */
export const previewListCommand: Command = {
  name: "preview list",
  summary: "list the live previews",
  takesEnv: false,
  fixedEnv: PREVIEW_ENV,
  help: "Lists each preview in the preview bucket, newest deploy first: id, URL, revision and\n" +
    "last deploy time. --json prints {previews: [{id, url, revision, deployedAt}]}.",
  run: previewList,
};

/** The `preview prune` command. */
export const previewPruneCommand: Command = {
  name: "preview prune",
  summary: "destroy previews not deployed for a while",
  takesEnv: false,
  fixedEnv: PREVIEW_ENV,
  flags: {
    "older-than": {
      type: "string",
      placeholder: "DURATION",
      description: "destroy previews last deployed longer ago than this (14d, 36h)",
    },
    "dry-run": { type: "boolean", description: "list what would be destroyed, change nothing" },
  },
  help: "Destroys every preview last deployed longer ago than --older-than (units d, h, m, s:\n" +
    "14d, 36h). A preview without a record is aged by its newest file. --dry-run lists them\n" +
    "only. --json prints {olderThan, dryRun, pruned: [ids]}.",
  run: previewPrune,
};

/** The `preview teardown` command. */
export const previewTeardownCommand: Command = {
  name: "preview teardown",
  summary: "delete the whole preview stack (needs --yes)",
  takesEnv: false,
  fixedEnv: PREVIEW_ENV,
  help: "Terminates running preview builds, then deletes in reverse order every resource of\n" +
    "the preview stack: the distribution (disabled, then deleted once deployed), the router\n" +
    "function, the DNS records bootstrap wrote, the certificate, the roles, the log groups and\n" +
    "the bucket with every preview and the state. The GitHub OIDC provider is kept. Refuses\n" +
    "to run without --yes.",
  run: previewTeardown,
};

/**
 * Creates the `preview deploy` command.
 *
 * @param seams MicroVM builder overrides for tests; none in the CLI
 * @returns the command
 */
export function createPreviewDeployCommand(seams: MicrovmSeams = {}): Command {
  return {
    name: "preview deploy",
    summary: "build this branch and publish it as https://<id>.<domain>",
    args: ["id"],
    takesEnv: false,
    fixedEnv: PREVIEW_ENV,
    flags: {
      id: { type: "string", placeholder: "ID", description: "the preview id (or positional)" },
      builder: {
        type: "string",
        values: ["local", "microvm"],
        description: "where to build (default: build.builder, else microvm)",
      },
      refresh: { type: "boolean", description: "re-upload every file" },
      force: { type: "boolean", description: "allow deleting more than half of the files" },
      "force-unlock": FORCE_UNLOCK_FLAG,
      "no-cache": NO_CACHE_FLAG,
    },
    help: "Builds the repository as `deploy` does and publishes it under previews/<id>/site/ of\n" +
      "the preview bucket: https://<id>.<domain>. The id is one DNS label (pr-42). SEO files are\n" +
      "non-production (robots disallow-all unless seo.robots forces otherwise; a sitemap only\n" +
      "with seo.sitemap on). The last line is the URL; --json prints {id, url, revision,\n" +
      "uploaded, deleted, unchanged, …}.",
    run: (ctx) => previewDeploy(ctx, seams),
  };
}

/** The `preview deploy` command. */
export const previewDeployCommand: Command = createPreviewDeployCommand();

/** The `preview` commands, in help order. */
export const PREVIEW_COMMANDS: readonly Command[] = [
  previewBootstrapCommand,
  previewDeployCommand,
  previewListCommand,
  previewDestroyCommand,
  previewPruneCommand,
  previewTeardownCommand,
];
