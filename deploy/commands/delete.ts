/**
 * `deploy delete [env]`: takes the site offline by emptying the live `site/` prefix and
 * invalidating `/*`. The infrastructure, builds and history stay, so `deploy` or `rollback`
 * brings it back.
 *
 * @module
 */
import type { Command, CommandContext } from "../command.ts";
import { DeployError } from "../errors.ts";
import { INVALIDATE_ALL } from "../cdn/plan_invalidation.ts";
import { createInvalidation } from "../cdn/send_invalidation.ts";
import { emptyPrefix } from "../infra/nodes/bucket.ts";
import { keptFilesKey, lockKey, SITE_PREFIX } from "../state/bucket_layout.ts";
import { removeObject } from "../aws/s3_objects.ts";
import { FORCE_UNLOCK_FLAG, takePublishingLock } from "../pipeline/publishing.ts";
import { LOCK_WAIT_MS, lockHolder, lockOptions } from "../pipeline/deploy_input.ts";
import { openSite } from "../site/open_site.ts";
import { refusePreviewEnv } from "../config/env_name.ts";

/** The `delete` command. */
export const deleteCommand: Command = {
  name: "delete",
  summary: "empty the live site and invalidate /* (asks, or needs --yes)",
  flags: { "force-unlock": FORCE_UNLOCK_FLAG },
  help: "Deletes every object under s3://<bucket>/site/ (files kept for open tabs included) and\n" +
    "invalidates /* on the distribution, so the site answers 404. Builds, history, the state\n" +
    "and every AWS resource stay; `deploy` or `rollback` publishes again. Needs a bootstrapped\n" +
    "environment. Asks for the environment's name on a terminal; without one it refuses unless\n" +
    "--yes is given. Waits up to 60 s for a running deploy's lock; --force-unlock removes a lock\n" +
    "whose holder is gone.",
  async run(ctx) {
    refusePreviewEnv(ctx, "delete");
    await confirmDelete(ctx);
    using site = await openSite(ctx, { aws: true });
    const { facts, clients } = site;
    const state = await site.requireState();
    // Not while a deploy of the environment is uploading (it would republish half a site).
    await using _lock = await takePublishingLock({
      bucket: facts.bucket,
      clients,
      logger: ctx.log,
      maxDurationSeconds: site.config.microvm.maxDurationSeconds,
      clock: ctx.clock,
      sleep: ctx.sleep,
      lock: {
        key: lockKey(facts.env),
        holder: lockHolder(ctx),
        waitMs: LOCK_WAIT_MS,
        ...lockOptions(ctx, true),
      },
    });
    const deleted = await emptyPrefix(clients.s3, facts.bucket, SITE_PREFIX);
    // The files kept for open tabs went with the site: nothing is kept any more.
    await removeObject({ s3: clients.s3, bucket: facts.bucket }, keptFilesKey(facts.env));
    let invalidationId: string | undefined;
    if (state.distributionId) {
      // The one invalidation path (with its backoff): the site is already emptied, so a
      // throttled CloudFront must not leave the edge serving the deleted pages.
      const sent = await createInvalidation(
        clients.cloudfront,
        state.distributionId,
        [INVALIDATE_ALL],
        `delete-${facts.env}-${ctx.clock.now()}`,
        { sleep: ctx.sleep },
      );
      invalidationId = sent?.id || undefined;
    }
    if (ctx.out.mode === "json") {
      ctx.out.data({
        env: facts.env,
        bucket: facts.bucket,
        deletedObjects: deleted,
        invalidation: invalidationId ? { id: invalidationId, paths: ["/*"] } : null,
      });
      return 0;
    }
    ctx.out.line(`Deleted ${deleted} object(s) from s3://${facts.bucket}/${SITE_PREFIX}.`);
    ctx.out.line(
      invalidationId
        ? `Invalidated /* on distribution ${state.distributionId} (${invalidationId}).`
        : "No distribution recorded: nothing to invalidate.",
    );
    ctx.out.line("Infrastructure, builds and history are kept; `deploy` publishes again.");
    return 0;
  },
};

/**
 * Emptying the live site is as destructive as `destroy` for its visitors: `--yes`, or on a
 * terminal the environment's name typed back; anything else refuses before AWS is touched.
 */
async function confirmDelete(ctx: CommandContext): Promise<void> {
  if (ctx.global.yes) return;
  const what = `\`deploy delete ${ctx.env}\` deletes every object of the live ${ctx.env} site`;
  if (!ctx.interactive) {
    throw new DeployError("confirmation_required", what, {
      hint: `run \`deploy delete ${ctx.env} --yes\` to confirm`,
    });
  }
  const answer = await ctx.prompt(`${what}. Type "${ctx.env}" to confirm:`);
  if (answer?.trim() !== ctx.env) {
    throw new DeployError("aborted", `not deleted: the answer was not "${ctx.env}"`, {
      hint: `run \`deploy delete ${ctx.env}\` again, or pass --yes`,
    });
  }
}
