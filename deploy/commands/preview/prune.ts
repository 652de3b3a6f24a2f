/**
 * `deploy preview prune --older-than <duration>`: destroys the previews not deployed for longer
 * than the duration; `--dry-run` lists them.
 *
 * @module
 */
import { parseDuration } from "@org/shared";
import type { S3Client } from "@aws-sdk/client-s3";
import type { CommandContext } from "../../command.ts";
import { DeployError } from "../../errors.ts";
import { previewAges } from "../../preview/listing.ts";
import { requirePreviewConfig } from "../../preview/open_preview.ts";
import { previewsToPrune } from "../../preview/prune.ts";
import { destroyPreview, listPreviews } from "../../preview/store.ts";
import { openSite } from "../../site/open_site.ts";
import { type PreviewLockSite, takePreviewLock } from "../../preview/preview_lock.ts";
import type { HeldLock } from "../../state/deploy_lock.ts";

/**
 * Runs `deploy preview prune`.
 *
 * @param ctx the command context
 * @returns the exit code
 */
export async function previewPrune(ctx: CommandContext): Promise<number> {
  const text = ctx.flags["older-than"];
  if (typeof text !== "string") {
    throw new DeployError("usage", "`deploy preview prune` needs --older-than <duration>", {
      hint: "usage: deploy preview prune --older-than 14d [--dry-run]",
    });
  }
  let seconds: number;
  try {
    seconds = parseDuration(text);
  } catch (err) {
    throw new DeployError("usage", `--older-than: ${(err as Error).message}`, {
      hint: "usage: deploy preview prune --older-than 14d [--dry-run]",
    });
  }
  const dryRun = ctx.flags["dry-run"] === true;
  using site = await openSite(ctx, { aws: true });
  requirePreviewConfig(site.site);
  const at = { s3: site.clients.s3, bucket: site.bucket };
  const stale = previewsToPrune(previewAges(await listPreviews(at)), ctx.clock.now(), seconds);
  const ids = dryRun ? stale : [];
  if (!dryRun) {
    for (const id of stale) {
      if (await destroyUnlessDeploying(ctx, site, at, id)) ids.push(id);
    }
  }
  if (ctx.out.mode === "json") {
    ctx.out.data({ olderThan: text, dryRun, pruned: ids });
    return 0;
  }
  if (ids.length === 0) {
    ctx.out.line(`No preview older than ${text}.`);
    return 0;
  }
  for (const id of ids) ctx.out.line(`  ${dryRun ? "would destroy" : "destroyed"}  ${id}`);
  ctx.out.line(
    `${dryRun ? "Would destroy" : "Destroyed"} ${ids.length} preview(s) not deployed for ${text}.`,
  );
  return 0;
}

/**
 * Destroys a stale preview under its lock; a preview whose deploy is running right now is not
 * stale after all, so it is kept (with a warning) rather than deleted half-way through.
 */
async function destroyUnlessDeploying(
  ctx: CommandContext,
  site: PreviewLockSite,
  at: { readonly s3: S3Client; readonly bucket: string },
  id: string,
): Promise<boolean> {
  let lock: HeldLock;
  try {
    lock = await takePreviewLock(ctx, site, id, 0);
  } catch (err) {
    if (err instanceof DeployError && err.code === "deploy_locked") {
      ctx.out.warn(`kept preview ${id}: ${err.message}`);
      return false;
    }
    throw err;
  }
  await using _lock = lock;
  await destroyPreview(at, id);
  return true;
}
