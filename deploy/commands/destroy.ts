/**
 * `deploy destroy [env] --yes`: tears every resource of the environment down in reverse
 * dependency order (the role, the bucket policy, the distribution — disabled, then deleted
 * once CloudFront has deployed that — the certificate, the OAC, the log groups, the bucket with
 * its contents and the state). The account-wide OIDC provider is kept.
 *
 * @module
 */
import type { Command, CommandContext } from "../command.ts";
import { refusePreviewEnv } from "../config/env_name.ts";
import { DeployError } from "../errors.ts";
import { teardown, type TeardownResult } from "../infra/reconcile.ts";
import { openSite, stateOrReason } from "../site/open_site.ts";
import { teardownLine } from "../infra/node_lines.ts";
import { lockKey, scopedStateKey } from "../state/bucket_layout.ts";
import { LOCK_WAIT_MS, lockHolder, lockOptions } from "../pipeline/deploy_input.ts";
import { FORCE_UNLOCK_FLAG, takePublishingLock } from "../pipeline/publishing.ts";
import { scopedStateNamespaces } from "../state/scoped_state.ts";

/**
 * Prints what teardown did to one node (nothing with `--json`).
 *
 * @param ctx the command context
 * @param r the node's result
 */
export function printTeardown(ctx: CommandContext, r: TeardownResult): void {
  if (ctx.out.mode === "json") return;
  const tag = r.action === "deleted"
    ? ctx.out.paint.red("deleted")
    : ctx.out.paint.dim(r.action.padEnd(7));
  ctx.out.line(`  ${tag}  ${r.label}${r.reason ? ` (${r.reason})` : ""}`);
}

/** The `destroy` command. */
export const destroyCommand: Command = {
  name: "destroy",
  summary: "tear every resource down (needs --yes)",
  flags: { "force-unlock": FORCE_UNLOCK_FLAG },
  help:
    "Deletes, in reverse order, every resource bootstrap created for the environment (and the\n" +
    "MicroVM builder image deploys made), then the\n" +
    "bucket with all its contents (site, builds, history, state). Disabling and deleting the\n" +
    "distribution waits for CloudFront (minutes). The GitHub OIDC provider is kept (shared by\n" +
    "the account). Refuses to run without --yes. Safe to re-run after a failure. Waits up to\n" +
    "60 s for a running deploy's lock; --force-unlock removes a lock whose holder is gone.",
  async run(ctx) {
    refusePreviewEnv(ctx, "destroy");
    if (!ctx.global.yes) {
      throw new DeployError(
        "confirmation_required",
        `\`deploy destroy ${ctx.env}\` deletes every resource of ${ctx.env}, including the bucket and its contents`,
        { hint: `run \`deploy destroy ${ctx.env} --yes\` to confirm` },
      );
    }
    using aws = await openSite(ctx, { aws: true });
    const { facts } = aws;
    const { state } = await stateOrReason(aws);
    // A plugin's resources hang off the site's (its state lives in the bucket, its log delivery
    // on the site's log source): they go first, by the plugin's own destroy.
    const plugins = await scopedStateNamespaces(aws.clients.s3, facts.bucket, facts.env);
    if (plugins.length > 0) {
      throw new DeployError(
        "plugin_state_exists",
        `${facts.env} still has plugin resources: ${
          plugins.map((ns) => `s3://${facts.bucket}/${scopedStateKey(facts.env, ns)}`).join(", ")
        }`,
        {
          hint: plugins.map((ns) => `run \`deploy ${ns} destroy ${facts.env} --yes\``).join(
            ", then ",
          ) + " first",
        },
      );
    }
    // Not while a deploy is uploading into the bucket about to go: its lock is held through
    // the teardown (it goes with the bucket; releasing it then finds nothing). No state: no
    // bucket to lock (a re-run after the bucket went).
    await using _lock = state === null ? undefined : await takePublishingLock({
      bucket: facts.bucket,
      clients: aws.clients,
      logger: ctx.log,
      maxDurationSeconds: facts.config.microvm.maxDurationSeconds,
      clock: ctx.clock,
      sleep: ctx.sleep,
      lock: {
        key: lockKey(facts.env),
        holder: lockHolder(ctx),
        waitMs: LOCK_WAIT_MS,
        ...lockOptions(ctx, true),
      },
    });
    if (ctx.out.mode !== "json") ctx.out.line(`Destroying ${facts.env} (${facts.bucket}):`);
    const results = await teardown(aws.graphRun(state), (r) => {
      if (ctx.out.mode !== "json") ctx.out.line(teardownLine(ctx.out.paint, r));
    });
    if (ctx.out.mode === "json") {
      ctx.out.data({ env: facts.env, bucket: facts.bucket, nodes: results });
      return 0;
    }
    const deleted = results.filter((r) => r.action === "deleted").length;
    ctx.out.line();
    ctx.out.line(
      deleted === 0
        ? "Nothing to destroy."
        : `Destroyed ${deleted} resource(s); the state is gone with the bucket.`,
    );
    return 0;
  },
};
