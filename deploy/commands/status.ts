/**
 * `deploy status [env]`: every resource of the environment read live and shown as present,
 * missing or drifted, with what the state recorded. A resource whose read fails is reported
 * as `error` without stopping the others.
 *
 * @module
 */
import { bootstrapCommandFor } from "../config/env_name.ts";
import type { Command } from "../command.ts";
import { statusLine } from "../infra/node_lines.ts";
import { inspect } from "../infra/reconcile.ts";
import type { S3Client } from "@aws-sdk/client-s3";
import {
  BUILD_CACHE_PREFIX,
  keptFilesKey,
  owedInvalidationKey,
  stateKey,
} from "../state/bucket_layout.ts";
import { listObjects } from "../aws/s3_objects.ts";
import { keptTotals, readKeptFiles } from "../state/kept_files.ts";
import { formatBytes } from "../units.ts";
import { readOwed } from "../cdn/owed_invalidation.ts";
import { INVALIDATE_ALL, planInvalidation } from "../cdn/plan_invalidation.ts";
import { openSite, stateOrReason } from "../site/open_site.ts";

/**
 * The CloudFront paths a failed or interrupted deploy still owes (what the next deploy will
 * invalidate besides its own changes), capped as a deploy caps them.
 */
async function owedPaths(
  s3: S3Client,
  bucket: string,
  env: string,
  options: { maxPaths: number; defaultRootObject: string },
): Promise<string[]> {
  const owed = await readOwed({ s3, bucket, key: owedInvalidationKey(env) });
  return owed.all
    ? [INVALIDATE_ALL]
    : planInvalidation(owed.keys, options.maxPaths, options.defaultRootObject);
}

/** The `status` command. */
export const statusCommand: Command = {
  name: "status",
  summary: "show each resource: present, missing or drifted",
  help: "Reads every resource of the environment live and compares it with what bootstrap would\n" +
    "create: present, missing, drifted (with the differences) or error (the read failed; the\n" +
    "others are still shown). The builder image is made by the first MicroVM deploy, the\n" +
    "headers function and policy by the first deploy (any builder), so they are missing until\n" +
    "then; a site with build.builder local has no builder image. Also shows the invalidation a failed or interrupted deploy still owes\n" +
    "(the next deploy sends it), and how many files of earlier builds stay live for open tabs\n" +
    "(retention.previousDays), and the MicroVM builder's cache in the bucket (cache/, entries\n" +
    "expire 30 days after their last use). Exit code 0 whatever the findings; --json for\n" +
    "scripts.",
  async run(ctx) {
    using aws = await openSite(ctx, { aws: true });
    const { facts } = aws;
    const { state, stateError } = await stateOrReason(aws);
    const reports = await inspect(aws.graphRun(state));
    const owed = state === null ? [] : await owedPaths(aws.clients.s3, facts.bucket, facts.env, {
      maxPaths: facts.config.invalidationMaxPaths,
      defaultRootObject: facts.config.defaultRootObject,
    });
    const kept = keptTotals(
      state === null ? [] : await readKeptFiles({
        s3: aws.clients.s3,
        bucket: facts.bucket,
        key: keptFilesKey(facts.env),
      }),
    );
    // What the MicroVM builds keep in the bucket (a missing bucket: nothing).
    const cached = state === null
      ? []
      : await listObjects({ s3: aws.clients.s3, bucket: facts.bucket }, BUILD_CACHE_PREFIX);
    const buildCache = {
      prefix: BUILD_CACHE_PREFIX,
      entries: cached.length,
      bytes: cached.reduce((n, o) => n + o.size, 0),
    };
    if (ctx.out.mode === "json") {
      ctx.out.data({
        env: facts.env,
        bucket: facts.bucket,
        state: state === null ? null : { key: stateKey(facts.env), updatedAt: state.updatedAt },
        ...(stateError ? { stateError } : {}),
        ok: reports.every((r) => r.status === "present" || (r.optional && r.status === "missing")),
        owedInvalidation: owed,
        kept,
        buildCache,
        nodes: reports,
      });
      return 0;
    }
    ctx.out.line(`Status of ${facts.env} (${facts.bucket}, ${facts.config.region}):`);
    ctx.out.line(
      state
        ? `  state     s3://${facts.bucket}/${stateKey(facts.env)} (updated ${state.updatedAt})`
        : `  state     ${stateError ?? `missing: run \`${bootstrapCommandFor(facts.env)}\``}`,
    );
    ctx.out.line(
      owed.length === 0
        ? `  invalidation  nothing owed`
        : `  invalidation  owed by an unfinished deploy (the next deploy sends it): ${
          owed.length > 5
            ? `${owed.slice(0, 5).join(" ")} … (${owed.length} paths)`
            : owed.join(" ")
        }`,
    );
    ctx.out.line(
      kept.files === 0
        ? `  kept      no files of earlier builds`
        : `  kept      ${kept.files} file(s) of earlier builds (${formatBytes(kept.bytes)}) ` +
          `live for open tabs (retention.previousDays ${facts.config.retention.previousDays})`,
    );
    // A local-builder site has no MicroVM builds, so no cache in its bucket to speak of.
    if (facts.config.build.builder !== "local") {
      ctx.out.line(
        `  cache     ${buildCache.entries} MicroVM build cache entr${
          buildCache.entries === 1 ? "y" : "ies"
        } (${formatBytes(buildCache.bytes)}) under s3://${facts.bucket}/${BUILD_CACHE_PREFIX}, ` +
          `each expiring 30 days after its last use`,
      );
    }
    for (const r of reports) {
      ctx.out.line(
        statusLine(
          ctx.out.paint,
          r,
          r.id === "builderImage"
            ? "not built yet (the first MicroVM deploy makes it)"
            : "not made yet (the first deploy makes it)",
        ),
      );
    }
    return 0;
  },
};
