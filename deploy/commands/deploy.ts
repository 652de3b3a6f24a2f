/**
 * `deploy deploy [env]`: zip → build (MicroVM by default, or `--builder local`) → SEO files →
 * sync → one invalidation of what changed, with an upload progress bar on a terminal and a
 * summary at the end.
 *
 * @module
 */
import type { Command } from "../command.ts";
import { runDeploy } from "../pipeline/deploy.ts";
import { summaryJson, summaryLines } from "../pipeline/report.ts";
import type { MicrovmSeams } from "../builders/create_builder.ts";
import { builderFlag, openSiteDeploy } from "../pipeline/deploy_input.ts";
import { pdsStage } from "../pipeline/pds_stage.ts";
import { FORCE_UNLOCK_FLAG } from "../pipeline/publishing.ts";
import { NO_CACHE_FLAG } from "../build_cache/no_cache_flag.ts";

/**
 * Creates the `deploy` command.
 *
 * @param seams MicroVM builder overrides for tests (keep-alive, agent bundle, launch token,
 *   poll interval); none in the CLI
 * @returns the command
 */
export function createDeployCommand(seams: MicrovmSeams = {}): Command {
  return {
    name: "deploy",
    summary: "build, sync to S3 and invalidate what changed",
    flags: {
      builder: {
        type: "string",
        values: ["local", "microvm"],
        description: "where to build (default: build.builder, else microvm)",
      },
      refresh: {
        type: "boolean",
        description: "re-upload and invalidate every file (metadata fixes)",
      },
      force: {
        type: "boolean",
        description: "allow deleting more than half of the live files",
      },
      "force-unlock": FORCE_UNLOCK_FLAG,
      "no-cache": NO_CACHE_FLAG,
    },
    help:
      "Zips the repository (honouring .gitignore, sourceIgnore and sourceInclude), builds it in\n" +
      "the MicroVM builder (or on this machine with --builder local), writes robots.txt and\n" +
      "sitemap.xml, uploads new and changed files (assets first, HTML after, deletions last)\n" +
      "and invalidates only the changed paths (nothing at all when nothing changed). Files the\n" +
      "build dropped stay live for retention.previousDays days for open tabs (pages, robots.txt\n" +
      "and sitemap.xml go at once); a later deploy deletes them. Needs a bootstrapped\n" +
      "environment. --refresh re-uploads and invalidates every file; --force allows a deploy\n" +
      "that deletes more than half of the live files; --json prints the summary.\n" +
      "Deploys of one environment take turns: a deploy holds locks/<env>.json in the bucket,\n" +
      "another waits up to 60 s and then refuses, naming the holder; --force-unlock removes a\n" +
      "lock whose holder is gone (one past its expiry is taken over anyway). Paths a failed or\n" +
      "interrupted deploy changed stay owed and are invalidated by the next deploy. The\n" +
      "dependencies and framework caches come from the build cache and are kept after a\n" +
      "successful build (docs/deploy-builder.md); --no-cache installs and builds without it.",
    async run(ctx) {
      const builder = builderFlag(ctx.flags.builder);
      using deploy = await openSiteDeploy(ctx, { builder, seams });
      // Production only: the comments before the build, the posts to the PDS after it.
      const pds = pdsStage(ctx, "deploy");
      let summary;
      try {
        summary = await runDeploy({ ...deploy.input, ...(pds ? { pds } : {}) });
      } finally {
        ctx.out.progress(""); // never leave a half-drawn bar under the error or summary
      }
      for (const w of summary.warnings) ctx.out.warn(w);
      if (ctx.out.mode === "json") {
        ctx.out.data(summaryJson(ctx.env, deploy.builderName, summary));
        return 0;
      }
      for (const line of summaryLines(ctx.env, summary)) ctx.out.line(line);
      return 0;
    },
  };
}

/** The `deploy` command. */
export const deployCommand: Command = createDeployCommand();
