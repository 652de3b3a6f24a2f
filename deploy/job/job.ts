/**
 * The build-and-publish job: unpack → install → build → SEO files → sync → build record. It is
 * the whole of a deploy's work on the site's files, and it runs the same wherever it runs: the
 * local builder calls {@linkcode runJob} in this process, the MicroVM builder's agent calls it
 * inside the VM. Its input names where the result goes (bucket, key prefix, tags) and how it
 * is presented to search engines (SEO settings, production or not, site origin), so a preview
 * runs it unchanged under another prefix.
 *
 * @module
 */
import type { S3Client } from "@aws-sdk/client-s3";
import { type Clock, type Logger, systemClock } from "@org/shared";
import {
  type BuildReport,
  type ChangedManifest,
  finishRecord,
  runningRecord,
} from "../build_records/record.ts";
import { downloadObject, putBuildRecord, putManifest } from "../build_records/store.ts";
import { DeployError } from "../errors.ts";
import { generateSeoFiles, listKeys } from "../seo/files.ts";
import { readRuleFiles } from "../routing/site_rules.ts";
import { routingSpec } from "../routing/routing_spec.ts";
import {
  applyRouting,
  type RoutingDeps,
  type RoutingTarget,
  type RulesReport,
} from "../routing/publish_routing.ts";
import { type SyncProgress, type SyncResult, syncSite, type SyncSource } from "../sync/engine.ts";
import type { KeptFile } from "../sync/retention.ts";
import { restoreFiles } from "../build_records/output.ts";
import { keepOutput, missingObjects } from "../build_records/output_store.ts";
import type { RetryOptions } from "../aws/retry.ts";
import { type BuiltSteps, runBuildSteps } from "./run_steps.ts";
import type { BuildCache } from "./build_cache.ts";
import { readBuildSecrets, type SecretReader } from "../build_settings/build_secrets.ts";
import { secretMasker } from "../build_settings/mask.ts";
import { recordOwed } from "../cdn/owed_invalidation.ts";
import { extractZip } from "./unzip.ts";
import type { JobInput, JobRetention } from "./job_input.ts";
import { getRoutingTarget } from "../build_records/store.ts";
import { readKeptFiles } from "../state/kept_files.ts";
import { makeWorkDir } from "./work_dir.ts";

export type {
  BuildPaths,
  JobInput,
  JobRecord,
  JobRetention,
  JobSource,
  JobTarget,
  Staged,
} from "./job_input.ts";

/**
 * Whose build caches a job uses: the framework caches are kept per site and branch (the
 * dependency cache is keyed by the lockfile and shared).
 */
export type JobCacheScope = NonNullable<JobInput["cache"]>;

/** What the job's install and build did (none when nothing was built). */
export type JobBuildReport = BuildReport;

/** A job whose staged parts were read back from the bucket: what the steps below work on. */
type ReadyJob = Omit<JobInput, "routing" | "retention"> & {
  readonly routing?: RoutingTarget;
  readonly retention?: Omit<JobRetention, "kept"> & { readonly kept: readonly KeptFile[] };
};

/** What the job did: the sync's counts and changed keys, the rules' changes, its warnings. */
export interface JobOutcome extends Omit<ChangedManifest, "version" | "id"> {
  /** Warnings for the user (a sitemap skipped). */
  readonly warnings: readonly string[];
  /** The full sync result, when the job ran in this process (`plan` reads its decisions). */
  readonly sync?: SyncResult;
}

/**
 * A job step, reported as it starts (the caller reports unpacking and building). `deployed`:
 * the rules changed what the edge locations run, and the job waits for the distribution to be
 * `Deployed` before it goes on.
 */
export type JobStage = "rules" | "deployed" | "seo" | "sync";

/** The line a job's `deployed` step shows (the CLI's step line, the MicroVM build's log line). */
export const DEPLOYED_STEP = "waiting for CloudFront to deploy the new rules to its edge locations";

/** What the job needs from where it runs. */
export interface JobDeps {
  /** S3 client for the target bucket (and the source zip in it). */
  readonly s3: S3Client;
  /** CloudFront (and the rules store) for `input.routing`. */
  readonly routing?: RoutingDeps;
  /** Warnings and structured logs. */
  readonly logger: Logger;
  /** End time for the record. Default: the system clock. */
  readonly clock?: Clock;
  /** Parent of the work directory. Default: the system temp dir. */
  readonly tempRoot?: string;
  /** Extra environment for install and build (merged over this process's). */
  readonly env?: Readonly<Record<string, string>>;
  /** Overrides the install+build deadline (milliseconds); tests use it. */
  readonly deadlineMs?: number;
  /** Milliseconds between TERM and KILL when a build step is stopped (default 5 s). */
  readonly killGraceMs?: number;
  /** Aborted on Ctrl-C/SIGTERM: the build is stopped and the job throws `interrupted`. */
  readonly signal?: AbortSignal;
  /** Backoff for S3 calls. */
  readonly retry?: RetryOptions;
  /** Parallel uploads. Default 16. */
  readonly concurrency?: number;
  /** A step starting. */
  readonly onStage?: (stage: JobStage) => void;
  /** The source unpacked: how many files. */
  readonly onUnpacked?: (files: number) => void;
  /** Each line install and build print, as they print it. */
  readonly onOutput?: (line: string, stream: "stdout" | "stderr") => void;
  /** Upload and delete progress. */
  readonly onSyncProgress?: (progress: SyncProgress) => void;
  /**
   * The build cache where this job runs, for `input.cache`'s scope (`workDir`: the job's work
   * directory, for archives in transit); none: no cache here.
   */
  readonly openCache?: (scope: JobCacheScope, workDir: string) => BuildCache;
  /** Reads `input.buildSecrets` where the build runs (the builder's credentials). */
  readonly readSecret?: SecretReader;
}

/**
 * The build deadline in milliseconds: `maxDurationSeconds` plus 60 s of slack for start-up
 * and output collection, as the spec sets for every builder.
 *
 * @param maxDurationSeconds `microvm.maxDurationSeconds`
 * @returns milliseconds
 */
export function buildDeadlineMs(maxDurationSeconds: number): number {
  return (maxDurationSeconds + 60) * 1000;
}

/**
 * How a failed job is described in its record and its marker line: `<code>: <message>` for a
 * {@linkcode DeployError}, else the error's message.
 *
 * @param err what the job threw
 * @returns one line of text
 */
export function jobFailureReason(err: unknown): string {
  return err instanceof DeployError
    ? `${err.code}: ${err.message}`
    : err instanceof Error
    ? err.message
    : String(err);
}

/**
 * Runs one job to the end: unpacks the source (downloading it from the bucket when it is
 * there), installs and builds in `paths.app`, lays `robots.txt` and `sitemap.xml` over the
 * output in memory, syncs it to `target` and, with `record`, stores the changed-keys manifest
 * and finishes the build record (`done`, or `failed` with the reason before rethrowing). The
 * work directory is removed in every case.
 *
 * @param input the job
 * @param deps S3, logger and hooks
 * @returns the outcome
 * @throws DeployError `build_source_missing`, `build_failed`, `build_timeout`, `dist_missing`,
 *   `rules_invalid`, `rules_propagation_timeout`, `dist_empty`, `too_many_deletes`; an AWS
 *   error that outlived its retries
 *
 * @example
 * ```ts
 * import type { JobDeps, JobInput } from "./job.ts";
 *
 * async function runFromZip(input: JobInput, deps: JobDeps) {
 *   const outcome = await runJob({ ...input, source: { zip: "/tmp/source.zip" } }, deps);
 *   return outcome.changedKeys; // ["index.html", …]
 * }
 * ```
 */
export async function runJob(job: JobInput, deps: JobDeps): Promise<JobOutcome> {
  const input = await unstage(job, deps);
  if ("output" in input.source) {
    // A restore: the manifest's files copied back server-side where they differ from the live
    // site, and live files the build did not have deleted, by the same sync as any deploy. No
    // build, no SEO files (the build's own are in the manifest), no record: the build's record
    // keeps describing the build.
    const manifest = input.source.output;
    const md5Of = new Map(manifest.files.map((f) => [f.key, f.md5]));
    const at = { s3: deps.s3, bucket: input.target.bucket };
    return await syncJob(input, deps, { files: restoreFiles(manifest) }, [], async (keys) => {
      const gone = await missingObjects(at, keys.flatMap((k) => md5Of.get(k) ?? []));
      if (gone > 0) {
        throw new DeployError(
          "build_output_missing",
          `${gone} kept object(s) of build ${manifest.id} are gone`,
          { hint: "rollback rebuilds the build from its stored source instead" },
        );
      }
    });
  }
  const clock = deps.clock ?? systemClock;
  const work = "builtDir" in input.source
    ? undefined
    : await makeWorkDir(`deploy-build-${input.buildId.replace(/[^\w.-]/g, "_")}-`, deps.tempRoot);
  try {
    const built = work === undefined ? undefined : await unpackAndBuild(input, deps, work.path);
    const distDir = built?.distDir ?? await existingOutput(input);
    // Checked before anything is uploaded: a bad rules file stops the deploy here.
    const fileRules = await readRuleFiles(distDir, input.origin);
    const keys = await listKeys(distDir);
    const rules = await publishRules(input, deps, fileRules, keys);
    deps.onStage?.("seo");
    const seo = generateSeoFiles(keys, input.seo, {
      isProduction: input.production,
      origin: input.origin,
    });
    // A plan shows its warnings in the plan itself; a deploy also logs them.
    if (!input.dryRun) { for (const warning of seo.warnings) deps.logger.warn(warning); }
    const synced = await syncJob(input, deps, { distDir, overlay: seo.files }, [
      ...rules.warnings,
      ...seo.warnings,
    ]);
    const outcome: JobOutcome = {
      ...synced,
      ...(rules.report ? { rules: rules.report } : {}),
      ...(built ? { build: buildReport(built) } : {}),
    };
    const finished = input.keepOutputDays !== undefined && !input.dryRun
      ? await keepJobOutput(input, input.keepOutputDays, deps, outcome, clock.now())
      : outcome;
    if (input.record && !input.dryRun) await recordDone(input, deps, finished, clock.now());
    return finished;
  } catch (err) {
    if (input.record && !input.dryRun) await recordFailed(input, deps, err, clock.now());
    throw err;
  } finally {
    await work?.remove();
  }
}

/**
 * The job with its staged parts (the rules target, the kept list) read back from the target
 * bucket, where the MicroVM builder stored them.
 */
async function unstage(job: JobInput, deps: JobDeps): Promise<ReadyJob> {
  const at = { s3: deps.s3, bucket: job.target.bucket };
  const { routing, retention, ...rest } = job;
  const kept = retention === undefined
    ? undefined
    : "stagedKey" in retention.kept
    ? await readKeptFiles({ ...at, key: retention.kept.stagedKey })
    : retention.kept;
  return {
    ...rest,
    ...(routing === undefined ? {} : {
      routing: "stagedKey" in routing ? await getRoutingTarget(at, routing.stagedKey) : routing,
    }),
    ...(retention === undefined ? {} : { retention: { ...retention, kept: kept! } }),
  };
}

/**
 * Puts the build's rules live before its pages (or, planned, says what would change): the
 * config's rules then the output's files'. Without a routing target (a preview) the rules are
 * not applied, which the warning says.
 */
async function publishRules(
  input: ReadyJob,
  deps: JobDeps,
  fileRules: Awaited<ReturnType<typeof readRuleFiles>>,
  keys: readonly string[],
): Promise<{ report?: RulesReport; warnings: string[] }> {
  const target = input.routing;
  if (!target) {
    const count = fileRules.redirects.length + fileRules.headers.length;
    return {
      warnings: count === 0 ? [] : [
        `${count} redirect/header rule(s) of _redirects/_headers are not applied here (previews serve files only)`,
      ],
    };
  }
  if (!deps.routing) throw new Error("the job has a routing target but no CloudFront client");
  deps.onStage?.("rules");
  const spec = routingSpec(
    {
      redirects: [...target.configRules.redirects, ...fileRules.redirects],
      headers: [...target.configRules.headers, ...fileRules.headers],
    },
    keys,
    { indexDocument: target.indexDocument, spa: target.spa, hasStore: !!target.store },
  );
  const report = await applyRouting(deps.routing, target, spec, input.dryRun ?? false, {
    onWaitDeployed: () => deps.onStage?.("deployed"),
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  for (const change of report.changes) deps.logger.info("rules", { change });
  return { report, warnings: [] };
}

/**
 * The sync step of every job: the same engine, guards, progress and owed record; `check` runs
 * on the keys about to change, before anything is (a restore's objects still there).
 */
async function syncJob(
  input: ReadyJob,
  deps: JobDeps,
  source: SyncSource,
  warnings: readonly string[],
  check?: (changedKeys: readonly string[]) => Promise<void>,
): Promise<JobOutcome> {
  deps.onStage?.("sync");
  const sync = await syncSite({
    s3: deps.s3,
    bucket: input.target.bucket,
    prefix: input.target.prefix,
    ...source,
    tags: "output" in input.source ? input.source.output.tags : input.tags,
    refresh: input.refresh ?? false,
    force: input.force ?? false,
    dryRun: input.dryRun ?? false,
    logger: deps.logger,
    ...(deps.retry ? { retry: deps.retry } : {}),
    ...(deps.concurrency ? { concurrency: deps.concurrency } : {}),
    ...(deps.onSyncProgress ? { onProgress: deps.onSyncProgress } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(input.retention === undefined ? {} : {
      retention: {
        previousDays: input.retention.previousDays,
        kept: input.retention.kept,
        nowMs: Date.parse(input.retention.now),
      },
    }),
    beforeApply: async (keys: readonly string[]) => {
      await check?.(keys);
      if (input.owedKey === undefined) return;
      await recordOwed({ s3: deps.s3, bucket: input.target.bucket, key: input.owedKey }, keys);
    },
  });
  return {
    changedKeys: sync.changedKeys,
    uploaded: sync.uploaded.length,
    deleted: sync.deleted.length,
    unchanged: sync.unchanged,
    bytesUploaded: sync.bytesUploaded,
    changeDigest: sync.changeDigest,
    kept: sync.kept,
    expired: sync.expired,
    warnings,
    sync,
  };
}

/**
 * Keeps a synced build restorable. The site is live by now, so a failure here is a warning
 * (the build can still be rolled back to by rebuilding), not a failed deploy.
 */
async function keepJobOutput(
  input: ReadyJob,
  buildsDays: number,
  deps: JobDeps,
  outcome: JobOutcome,
  nowMs: number,
): Promise<JobOutcome> {
  try {
    const copied = await keepOutput({ s3: deps.s3, bucket: input.target.bucket }, {
      id: input.buildId,
      files: outcome.sync!.files,
      prefix: input.target.prefix,
      tags: input.tags,
      buildsDays,
      nowMs,
      ...(deps.retry ? { retry: deps.retry } : {}),
      ...(deps.concurrency ? { concurrency: deps.concurrency } : {}),
    });
    deps.logger.info("output kept", { build: input.buildId, copied });
    return outcome;
  } catch (err) {
    const warning = `build ${input.buildId} is live but was not kept for rollback (${
      jobFailureReason(err)
    }): rolling back to it will rebuild it`;
    deps.logger.warn(warning);
    return { ...outcome, warnings: [...outcome.warnings, warning] };
  }
}

async function existingOutput(input: ReadyJob): Promise<string> {
  const dir = (input.source as { builtDir: string }).builtDir;
  if (!(await Deno.stat(dir).catch(() => undefined))?.isDirectory) {
    throw new DeployError(
      "dist_missing",
      `--no-build needs an existing ${input.paths.dist} directory`,
      { hint: "build the site first, or drop --no-build" },
    );
  }
  return dir;
}

function buildReport(built: BuiltSteps): JobBuildReport {
  return {
    cacheHit: built.cacheHit,
    frameworkCacheHit: built.frameworkCacheHit,
    ...(built.cacheKey === undefined ? {} : { cacheKey: built.cacheKey }),
    timings: built.timings,
  };
}

/**
 * The install and build's environment: the builder's, then `build.env`, then the secrets read
 * now; and the output relay, masking the secrets' values.
 */
async function buildEnvironment(
  input: ReadyJob,
  deps: JobDeps,
): Promise<{ env: Record<string, string>; onOutput?: JobDeps["onOutput"] }> {
  const names = input.buildSecrets ?? {};
  let secrets: Record<string, string> = {};
  if (Object.keys(names).length > 0) {
    if (!deps.readSecret) throw new Error("the job names build secrets but has no secret reader");
    secrets = await readBuildSecrets(names, deps.readSecret);
  }
  const env = { ...deps.env, ...input.buildEnv, ...secrets };
  const relay = deps.onOutput;
  if (!relay) return { env };
  const mask = secretMasker(Object.values(secrets));
  return { env, onOutput: (line, stream) => relay(mask(line), stream) };
}

async function unpackAndBuild(
  input: ReadyJob,
  deps: JobDeps,
  work: string,
): Promise<BuiltSteps> {
  let zip: string;
  if ("bucketKey" in input.source) {
    zip = `${work}/source.zip`;
    await downloadObject({ s3: deps.s3, bucket: input.target.bucket }, input.source.bucketKey, zip);
  } else {
    zip = (input.source as { zip: string }).zip;
  }
  const root = `${work}/src`;
  await Deno.mkdir(root);
  const files = await extractZip(zip, root);
  deps.onUnpacked?.(files);
  const { env, onOutput } = await buildEnvironment(input, deps);
  const cache = input.cache && deps.openCache?.(input.cache, work);
  return await runBuildSteps({
    rootDir: root,
    paths: input.paths,
    deadlineMs: deps.deadlineMs ?? buildDeadlineMs(input.maxDurationSeconds),
    ...(onOutput ? { onOutput } : {}),
    env,
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(deps.killGraceMs !== undefined ? { killGraceMs: deps.killGraceMs } : {}),
    ...(cache ? { cache } : {}),
  });
}

/**
 * The changed-keys manifest of a job's outcome (pure): what a MicroVM build stores for the CLI.
 *
 * @param buildId the build id
 * @param outcome the job's outcome
 * @returns the manifest
 */
export function changedManifest(buildId: string, outcome: JobOutcome): ChangedManifest {
  return {
    version: 1,
    id: buildId,
    changedKeys: outcome.changedKeys,
    uploaded: outcome.uploaded,
    deleted: outcome.deleted,
    unchanged: outcome.unchanged,
    bytesUploaded: outcome.bytesUploaded,
    ...(outcome.changeDigest === undefined ? {} : { changeDigest: outcome.changeDigest }),
    ...(outcome.kept === undefined ? {} : { kept: outcome.kept }),
    ...(outcome.expired === undefined ? {} : { expired: outcome.expired }),
    ...(outcome.rules ? { rules: outcome.rules } : {}),
    ...(outcome.build ? { build: outcome.build } : {}),
  };
}

async function recordDone(
  input: ReadyJob,
  deps: JobDeps,
  outcome: JobOutcome,
  now: number,
): Promise<void> {
  const at = { s3: deps.s3, bucket: input.target.bucket };
  await putManifest(at, changedManifest(input.buildId, outcome));
  await putBuildRecord(
    at,
    finishRecord(runningRecord(input.buildId, input.record!), now, {
      status: "done",
      uploaded: outcome.uploaded,
      deleted: outcome.deleted,
      unchanged: outcome.unchanged,
      bytesUploaded: outcome.bytesUploaded,
    }),
  );
}

async function recordFailed(
  input: ReadyJob,
  deps: JobDeps,
  err: unknown,
  now: number,
): Promise<void> {
  const at = { s3: deps.s3, bucket: input.target.bucket };
  const reason = jobFailureReason(err);
  try {
    await putBuildRecord(
      at,
      finishRecord(runningRecord(input.buildId, input.record!), now, { status: "failed", reason }),
    );
  } catch (recordErr) {
    deps.logger.warn(`the build record could not be stored: ${String(recordErr)}`);
  }
}
