/**
 * `deploy rollback <id> [env]`: rebuilds a stored build's source (`build/<id>.zip`) in the
 * MicroVM builder, which syncs it live, then invalidates what changed.
 *
 * @module
 */
import type { Command } from "../cli/command.ts";
import {
  invalidateOwed,
  type PublishingTarget,
  takePublishingLock,
} from "../pipeline/publishing.ts";
import { LOCK_WAIT_MS, lockHolder } from "../pipeline/deploy_input.ts";
import { DeployError } from "../errors.ts";
import { sourceKey } from "../build_records/record.ts";
import type { MicrovmBuilderOptions } from "../builders/microvm/builder.ts";
import { siteOrigin } from "../seo/policy.ts";
import { openSite } from "../site/open_site.ts";
import { refusePreviewEnv } from "../config/env_name.ts";
import { lockKey, owedInvalidationKey, SITE_PREFIX } from "../state/bucket_layout.ts";
import { createBuilder } from "../builders/create_builder.ts";
import { warnRecordsNotRolledBack } from "./pds.ts";

/** Test seams passed through to the MicroVM builder (clock, sleep, keep-alive, bundle). */
export type RollbackSeams = Pick<
  MicrovmBuilderOptions,
  "clock" | "sleep" | "keepAlive" | "bundle" | "newToken" | "pollIntervalMs"
>;

/**
 * Creates the `rollback` command.
 *
 * @param seams builder overrides for tests; none in the CLI
 * @returns the command
 */
export function createRollbackCommand(seams: RollbackSeams = {}): Command {
  return {
    name: "rollback",
    summary: "redeploy a stored build",
    args: ["id"],
    help:
      "Rebuilds build <id> from its stored source (build/<id>.zip) in the MicroVM builder, which\n" +
      "syncs the result live, then invalidates the changed paths. Reads the distribution id and\n" +
      "the builder image settings from state/<env>.json (written by bootstrap).",
    async run(ctx) {
      const id = ctx.args.id ?? "";
      refusePreviewEnv(ctx, "rollback");
      using site = await openSite(ctx, { state: "lenient" });
      const { bucket, clients, state } = site;
      const distributionId = state.distributionId;
      if (!distributionId) {
        throw new DeployError(
          "distribution_unknown",
          `state/${ctx.env}.json names no distribution`,
          { hint: "run `deploy bootstrap` first" },
        );
      }
      const config = site.config;
      const builder = createBuilder(ctx, site, "microvm", { seams });
      // A rollback publishes to site/ like a deploy: the same lock and the same owed paths.
      const target: PublishingTarget = {
        bucket,
        distributionId,
        invalidationMaxPaths: config.invalidationMaxPaths,
        defaultRootObject: config.defaultRootObject,
        maxDurationSeconds: config.microvm.maxDurationSeconds,
        clients,
        logger: ctx.log,
        clock: ctx.clock,
        sleep: ctx.sleep,
        lock: { key: lockKey(ctx.env), holder: lockHolder(ctx), waitMs: LOCK_WAIT_MS },
        owedKey: owedInvalidationKey(ctx.env),
      };
      await using _lock = await takePublishingLock(target);
      ctx.out.step(`rolling back ${ctx.env} to build ${id}`);
      const out = await builder.run({
        buildId: id,
        source: { bucketKey: sourceKey(id) },
        paths: { app: config.paths.app, dist: config.paths.dist },
        maxDurationSeconds: config.microvm.maxDurationSeconds,
        target: { bucket, prefix: SITE_PREFIX },
        tags: { ...site.names.tags },
        seo: config.seo,
        production: ctx.env === "production",
        origin: siteOrigin(config.domain, state.distributionDomain),
        // Restoring a recorded build is deliberate (and has no --force): it may delete
        // whatever later builds added. An empty output is still refused (dist_empty).
        force: true,
      }, {
        onOutput: (line) => {
          if (ctx.out.mode !== "json") ctx.out.line(line);
        },
      });
      const sent = await invalidateOwed(target, out.changedKeys, id, out.changeDigest ?? "");
      await warnRecordsNotRolledBack(ctx);
      const summary = {
        id,
        uploaded: out.uploaded,
        deleted: out.deleted,
        unchanged: out.unchanged,
        changedKeys: out.changedKeys,
        invalidation: sent ? { id: sent.id, paths: sent.paths } : null,
      };
      if (ctx.out.mode === "json") {
        ctx.out.data(summary);
        return;
      }
      ctx.out.line(
        `rolled back to ${id}: ${out.uploaded} uploaded, ${out.deleted} deleted, ${out.unchanged} unchanged`,
      );
      ctx.out.line(
        sent ? `invalidated ${sent.paths.length} path(s) (${sent.id})` : "nothing to invalidate",
      );
    },
  };
}

/** The `rollback` command. */
export const rollbackCommand: Command = createRollbackCommand();
