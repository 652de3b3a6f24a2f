/**
 * The local builder (`--builder local`, and `plan`): runs the build-and-publish job in this
 * process, on this machine.
 *
 * A deploy is recorded as the MicroVM builder records it: the source zip stored at
 * `build/<id>.zip` (so `rollback <id>` can rebuild it) and a `running` record at
 * `builds/<id>.json` before the build, which the job finishes (`done` with its counts, or
 * `failed`). `history` lists it; its log fields are empty, since its lines were printed here
 * rather than stored. A `--no-build` deploy is recorded with no source (nothing to rebuild); a
 * `plan` and a restored build (`rollback` of a kept output) record nothing.
 *
 * @module
 */
import type { S3Client } from "@aws-sdk/client-s3";
import { type Clock, type Logger, systemClock } from "@org/shared";
import type { RetryOptions } from "../aws/retry.ts";
import { runningRecord } from "../build_records/record.ts";
import { putBuildRecord, putSourceZip } from "../build_records/store.ts";
import {
  buildDeadlineMs,
  type JobCacheScope,
  type JobInput,
  type JobRecord,
  runJob,
} from "../job/job.ts";
import type { Builder } from "./builder.ts";
import type { RoutingDeps } from "../routing/publish_routing.ts";
import { openCacheStore } from "../build_cache/cache_store.ts";
import { localBuildCache } from "../build_cache/local_build_cache.ts";
import type { SecretReader } from "../build_settings/build_secrets.ts";

/** Options for {@linkcode createLocalBuilder}. */
export interface LocalBuilderOptions {
  /** S3 client for the target bucket. */
  readonly s3: S3Client;
  /** Warnings and structured logs. */
  readonly logger: Logger;
  /** Parent of the temp build dir. Default: the system temp dir. */
  readonly tempRoot?: string;
  /** Overrides the deadline (milliseconds); tests use it instead of waiting a minute. */
  readonly deadlineMs?: number;
  /** Extra environment for the install and build (merged over this process's). */
  readonly env?: Readonly<Record<string, string>>;
  /** Backoff for S3 calls. */
  readonly retry?: RetryOptions;
  /** Parallel uploads. Default 16. */
  readonly concurrency?: number;
  /** Time source for records. Default: the system clock. */
  readonly clock?: Clock;
  /** CloudFront (and the rules store) to put the site's rules live before the sync. */
  readonly routing?: RoutingDeps;
  /**
   * The build cache's folder (`$HOME/.cache/org-deploy/cache`, beside the work directories);
   * none: builds here are not cached.
   */
  readonly cacheRoot?: string;
  /** Reads `build.secrets` (with the deploying user's credentials). */
  readonly readSecret?: SecretReader;
}

/**
 * Creates the local builder: `run()` calls {@linkcode runJob} here, with the caller's hooks.
 *
 * @param options S3, logger, temp root, deadline override and extra env
 * @returns the builder
 *
 * @example
 * ```ts
 * import type { JobInput } from "../job/job.ts";
 * import type { LocalBuilderOptions } from "./local.ts";
 *
 * const build = (options: LocalBuilderOptions, input: JobInput) =>
 *   createLocalBuilder(options).run(input);
 * ```
 */
export function createLocalBuilder(options: LocalBuilderOptions): Builder {
  return {
    name: "local",
    deadlineMs: (maxDurationSeconds) => options.deadlineMs ?? buildDeadlineMs(maxDurationSeconds),
    run: async (input, hooks = {}) => {
      // A restore rebuilds nothing: the restored build's record stays as it is.
      const record = input.dryRun || "output" in input.source
        ? undefined
        : await startRecord(options, input);
      const { cacheRoot, ...deps } = options;
      const openCache = cacheRoot === undefined
        ? undefined
        : (scope: JobCacheScope) =>
          localBuildCache({ store: openCacheStore(cacheRoot), logger: options.logger, scope });
      return await runJob(record ? { ...input, record } : input, {
        ...deps,
        ...hooks,
        ...(openCache ? { openCache } : {}),
      });
    },
  };
}

/** Stores the source (when there is a zip) and the `running` record the job will finish. */
async function startRecord(options: LocalBuilderOptions, input: JobInput): Promise<JobRecord> {
  const at = { s3: options.s3, bucket: input.target.bucket };
  const source = "zip" in input.source
    ? await putSourceZip(at, input.buildId, await Deno.readFile(input.source.zip))
    : "bucketKey" in input.source
    ? input.source.bucketKey
    : "";
  const started: JobRecord = {
    startedAt: new Date((options.clock ?? systemClock).now()).toISOString(),
    source,
    logGroup: "",
    logStream: "",
  };
  await putBuildRecord(at, runningRecord(input.buildId, started));
  return started;
}
