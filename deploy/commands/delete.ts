/**
 * `deploy delete [env]`: takes the site offline by emptying the live `site/` prefix and
 * invalidating `/*`. The infrastructure, builds and history stay, so `deploy` or `rollback`
 * brings it back.
 *
 * @module
 */
import { CreateInvalidationCommand } from "@aws-sdk/client-cloudfront";
import type { Command } from "../cli/command.ts";
import { aws } from "../aws/errors.ts";
import { emptyPrefix } from "../infra/nodes/bucket.ts";
import { SITE_PREFIX } from "../state/bucket_layout.ts";
import { openSite } from "../site/open_site.ts";
import { refusePreviewEnv } from "../preview/open_preview.ts";

/** The `delete` command. */
export const deleteCommand: Command = {
  name: "delete",
  summary: "empty the live site and invalidate /*; keeps infrastructure and history",
  help:
    "Deletes every object under s3://<bucket>/site/ and invalidates /* on the distribution, so\n" +
    "the site answers 404. Builds, history, the state and every AWS resource stay; `deploy` or\n" +
    "`rollback` publishes again. Needs a bootstrapped environment.",
  async run(ctx) {
    refusePreviewEnv(ctx, "delete");
    using site = await openSite(ctx, { state: "required" });
    const { facts, clients, state } = site;
    const deleted = await emptyPrefix(clients.s3, facts.bucket, SITE_PREFIX);
    let invalidationId: string | undefined;
    if (state.distributionId) {
      const id = state.distributionId;
      const out = await aws({
        resource: `distribution ${id}`,
        action: "cloudfront:CreateInvalidation",
      }, () =>
        clients.cloudfront.send(
          new CreateInvalidationCommand({
            DistributionId: id,
            InvalidationBatch: {
              CallerReference: `delete-${facts.env}-${ctx.clock.now()}`,
              Paths: { Quantity: 1, Items: ["/*"] },
            },
          }),
        ));
      invalidationId = out.Invalidation?.Id;
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
