/**
 * Taking one preview's deploy lock outside a deploy: `preview destroy` and `preview prune`
 * delete `previews/<id>/`, which must not happen while a deploy of that preview is uploading
 * (it would then write its record over a preview with files missing).
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { SiteConfig } from "../config/site_config.ts";
import { lockHolder, lockOptions } from "../pipeline/deploy_input.ts";
import { takePublishingLock } from "../pipeline/publishing.ts";
import type { HeldLock } from "../state/deploy_lock.ts";
import { previewLockKey } from "../state/bucket_layout.ts";
import type { AwsClients } from "../aws/clients.ts";

/** The opened preview site, as far as its lock needs it. */
export interface PreviewLockSite {
  /** The preview bucket. */
  readonly bucket: string;
  /** Its clients (S3 for the lock). */
  readonly clients: AwsClients;
  /** The resolved configuration (the lock's lifetime follows the longest build). */
  readonly config: SiteConfig;
}

/**
 * Takes preview `id`'s lock, waiting up to `waitMs` for a deploy of it to finish.
 *
 * @param ctx the command context (logger, clock, sleep, holder)
 * @param site bucket, clients and configuration
 * @param id the preview id (already checked)
 * @param waitMs how long to wait for a running deploy (0: refuse at once)
 * @returns the held lock (`await using` releases it)
 * @throws DeployError `deploy_locked` naming the deploy that holds it
 */
export async function takePreviewLock(
  ctx: CommandContext,
  site: PreviewLockSite,
  id: string,
  waitMs: number,
): Promise<HeldLock> {
  return (await takePublishingLock({
    bucket: site.bucket,
    clients: site.clients,
    logger: ctx.log,
    maxDurationSeconds: site.config.microvm.maxDurationSeconds,
    clock: ctx.clock,
    sleep: ctx.sleep,
    lock: { key: previewLockKey(id), holder: lockHolder(ctx), waitMs, ...lockOptions(ctx, false) },
  }))!;
}
