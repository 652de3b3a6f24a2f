/**
 * `deploy preview deploy <id>`: the deploy pipeline under the preview's prefix: zip → build
 * (MicroVM by default, `--builder local`) → SEO files (non-production, on the preview's URL) →
 * sync to `previews/<id>/site/` tagged `environment=preview-<id>` → the preview's record. No
 * invalidation (the preview distribution does not cache), no PDS sync, nothing of production.
 *
 * @module
 */
import { PREVIEW_USER } from "../preview/auth.ts";
import type { Command } from "../cli/command.ts";
import type { MicrovmSeams } from "../builders/create_builder.ts";
import { runDeploy } from "../pipeline/deploy.ts";
import { openSiteDeploy } from "../pipeline/deploy_input.ts";
import { summaryLines } from "../pipeline/report.ts";
import { PREVIEW_ENV } from "../config/names.ts";
import { previewTarget } from "../preview/open_preview.ts";
import { parsePreviewId } from "../preview/preview_id.ts";
import { previewLockKey } from "../state/bucket_layout.ts";
import { previewRecord } from "../preview/record.ts";
import { writePreviewRecord } from "../preview/store.ts";
import { NO_CACHE_FLAG } from "../build_cache/no_cache_flag.ts";

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
        description: "where to build (default microvm)",
      },
      refresh: { type: "boolean", description: "re-upload every file" },
      force: { type: "boolean", description: "allow deleting more than half of the files" },
      "no-cache": NO_CACHE_FLAG,
    },
    help: "Builds the repository as `deploy` does and publishes it under previews/<id>/site/ of\n" +
      "the preview bucket: https://<id>.<domain>. The id is one DNS label (pr-42). SEO files are\n" +
      "non-production (robots disallow-all unless seo.robots forces otherwise; a sitemap only\n" +
      "with seo.sitemap on). The last line is the URL; --json prints {id, url, revision,\n" +
      "uploaded, deleted, unchanged, …}.",
    async run(ctx) {
      const id = parsePreviewId(ctx.args.id ?? "");
      const builder = ctx.flags.builder === "local" ? "local" : "microvm";
      let passworded = false;
      using deploy = await openSiteDeploy(ctx, {
        builder,
        seams,
        aside: (site) => {
          passworded = site.site.config.previews.password !== undefined;
          return { ...previewTarget(site, id), lockKey: previewLockKey(id) };
        },
      });
      let summary;
      try {
        summary = await runDeploy(deploy.input);
      } finally {
        ctx.out.progress("");
      }
      const url = deploy.input.origin!;
      await writePreviewRecord(
        { s3: deploy.input.clients.s3, bucket: deploy.input.bucket },
        previewRecord({
          id,
          url,
          revision: summary.revision,
          deployedAt: new Date(ctx.clock.now()),
        }),
      );
      for (const w of summary.warnings) ctx.out.warn(w);
      if (ctx.out.mode === "json") {
        ctx.out.data({
          id,
          url,
          revision: summary.revision,
          uploaded: summary.uploaded,
          deleted: summary.deleted,
          unchanged: summary.unchanged,
          bytesUploaded: summary.bytesUploaded,
          durationMs: summary.durationMs,
          cache: summary.cache,
          steps: summary.steps,
          builder: deploy.builderName,
          changedKeys: summary.changedKeys,
          warnings: summary.warnings,
        });
        return 0;
      }
      // The environment summary without its invalidation and URL lines; the URL comes last.
      const lines = summaryLines(`preview ${id}`, summary).filter((l) =>
        !/^ {2}(invalidation|url) /.test(l)
      );
      for (const line of lines) ctx.out.line(line);
      if (passworded) {
        ctx.out.line(`  access        HTTP Basic, user "${PREVIEW_USER}" (previews.password)`);
      }
      ctx.out.line(url);
      return 0;
    },
  };
}

/** The `preview deploy` command. */
export const previewDeployCommand: Command = createPreviewDeployCommand();
