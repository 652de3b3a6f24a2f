/**
 * `deploy preview deploy <id>`: the deploy pipeline under the preview's prefix: zip → build
 * (MicroVM by default, `--builder local`) → SEO files (non-production, on the preview's URL) →
 * sync to `previews/<id>/site/` tagged `environment=preview-<id>` → the preview's record. No
 * invalidation (the preview distribution does not cache), no PDS sync, nothing of production.
 *
 * @module
 */
import { PREVIEW_USER } from "../../preview/auth.ts";
import type { CommandContext } from "../../command.ts";
import type { MicrovmSeams } from "../../builders/create_builder.ts";
import { runDeploy } from "../../pipeline/deploy.ts";
import { builderFlag, openSiteDeploy } from "../../pipeline/deploy_input.ts";
import { PREVIEW_STEPS, summaryLines } from "../../pipeline/report.ts";
import { previewTarget } from "../../preview/open_preview.ts";
import { parsePreviewId } from "../../preview/preview_id.ts";
import { previewLockKey } from "../../state/bucket_layout.ts";
import { previewRecord } from "../../preview/record.ts";
import { writePreviewRecord } from "../../preview/store.ts";

/**
 * Runs `deploy preview deploy`.
 *
 * @param ctx the command context
 * @param seams MicroVM builder overrides for tests; none in the CLI
 * @returns the exit code
 */
export async function previewDeploy(ctx: CommandContext, seams: MicrovmSeams): Promise<number> {
  const id = parsePreviewId(ctx.args.id ?? "");
  const builder = builderFlag(ctx.flags.builder);
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
  const lines = summaryLines(`preview ${id}`, summary, PREVIEW_STEPS).filter((l) =>
    !/^ {2}(invalidation|url) /.test(l)
  );
  for (const line of lines) ctx.out.line(line);
  if (passworded) {
    ctx.out.line(`  access        HTTP Basic, user "${PREVIEW_USER}" (previews.password)`);
  }
  ctx.out.line(url);
  return 0;
}
