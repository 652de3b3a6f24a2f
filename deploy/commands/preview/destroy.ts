/**
 * `deploy preview destroy <id>`: removes everything under `previews/<id>/`; an unknown id
 * removes nothing and succeeds.
 *
 * @module
 */
import type { CommandContext } from "../../command.ts";
import { requirePreviewConfig } from "../../preview/open_preview.ts";
import { parsePreviewId } from "../../preview/preview_id.ts";
import { destroyPreview } from "../../preview/store.ts";
import { openSite } from "../../site/open_site.ts";
import { LOCK_WAIT_MS } from "../../pipeline/deploy_input.ts";
import { takePreviewLock } from "../../preview/preview_lock.ts";

/**
 * Runs `deploy preview destroy`.
 *
 * @param ctx the command context
 * @returns the exit code
 */
export async function previewDestroy(ctx: CommandContext): Promise<number> {
  const id = parsePreviewId(ctx.args.id ?? "");
  using site = await openSite(ctx, { aws: true });
  requirePreviewConfig(site.site);
  // Not while a deploy of this preview is uploading: wait for it, as a second deploy would.
  await using _lock = await takePreviewLock(ctx, site, id, LOCK_WAIT_MS);
  const deleted = await destroyPreview({ s3: site.clients.s3, bucket: site.bucket }, id);
  if (ctx.out.mode === "json") {
    ctx.out.data({ id, deleted });
    return 0;
  }
  ctx.out.line(
    deleted === 0
      ? `No preview ${id}: nothing to destroy.`
      : `Destroyed preview ${id} (${deleted} object${deleted === 1 ? "" : "s"}).`,
  );
  return 0;
}
