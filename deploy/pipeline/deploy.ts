/**
 * The deploy pipeline as functions of explicit inputs: revision → source zip (or a stored
 * build's source, for `rollback`) → the build-and-publish job (`job/job.ts`: unpack, install,
 * build, SEO files, sync), run by the builder where it runs → one invalidation of what changed.
 * `plan` is the same job with `dryRun`. The `plan`, `deploy` and `rollback` commands are thin
 * layers that resolve config and state into a {@linkcode DeployInput} and print the result.
 *
 * @module
 */
import { writeLiveBuild } from "../build_records/live_build.ts";
import type { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import type { S3Client } from "@aws-sdk/client-s3";
import { type Clock, type Logger, systemClock } from "@org/shared";
import type { Builder, BuildPaths } from "../builders/builder.ts";
import { sourceKey } from "../build_records/record.ts";
import { stripPath } from "../job/run_steps.ts";
import { planInvalidation } from "../cdn/plan_invalidation.ts";
import {
  DEPLOYED_STEP,
  type JobBuildReport,
  type JobCacheScope,
  type JobInput,
  type JobOutcome,
} from "../job/job.ts";
import { type DeployLockInput, invalidateOwed, takePublishingLock } from "./publishing.ts";
import { makeWorkDir } from "../job/work_dir.ts";
import { interruptedError } from "../errors.ts";
import type { SeoSettings } from "../seo/policy.ts";
import { type CommandRunner, readRevision, type Revision } from "../source/revision.ts";
import { createSourceZip } from "../source/zip.ts";
import type { SyncProgress } from "../sync/engine.ts";
import type { UploadReason } from "../sync/plan.ts";
import { type KeptFile, keptUntil } from "../sync/retention.ts";
import { readKeptFiles, writeKeptFiles } from "../state/kept_files.ts";
import type { RetryOptions } from "../aws/retry.ts";
import type { RoutingTarget, RulesReport } from "../routing/publish_routing.ts";
import type { OutputManifest } from "../build_records/output.ts";
import type { PdsStage } from "./pds_stage.ts";

/** A pipeline step, reported as it starts. */
export type DeployStage =
  | "revision"
  | "zip"
  | "build"
  | "rules"
  | "deployed"
  | "seo"
  | "sync"
  | "invalidate";

/**
 * Every stage, once: the progress line shown as it starts (`step`; `planStep` instead in a plan,
 * where the stage changes nothing), and how an interruption before it names it (`name`).
 */
export const DEPLOY_STAGES: Readonly<
  Record<DeployStage, { readonly step: string; readonly planStep?: string; readonly name: string }>
> = {
  revision: { step: "reading the revision", name: "reading the revision" },
  zip: { step: "zipping the source", name: "zipping the source" },
  build: { step: "building", name: "the build" },
  rules: {
    step: "putting the redirect and header rules live",
    planStep: "comparing the redirect and header rules with the live ones",
    name: "publishing the rules",
  },
  deployed: { step: DEPLOYED_STEP, name: "the wait for CloudFront to deploy the rules" },
  seo: { step: "writing robots.txt and sitemap.xml", name: "writing the SEO files" },
  sync: { step: "comparing with the live site", name: "the sync" },
  invalidate: { step: "invalidating the changed paths", name: "the invalidation" },
};

/**
 * Progress events: a stage starting (`plan` set in a plan, which changes nothing), or
 * upload/delete progress inside the sync.
 */
export type DeployProgress =
  | { readonly kind: "stage"; readonly stage: DeployStage; readonly plan?: true }
  | ({ readonly kind: "sync" } & SyncProgress);

/** Everything one plan or deploy needs, already resolved from config, state and flags. */
export interface DeployInput {
  /** Absolute repository root. */
  readonly repoRoot: string;
  /** Environment name (for logs and the `environment` tag the caller puts in `tags`). */
  readonly env: string;
  /** Production and not a preview: drives `seo` `auto`. */
  readonly isProduction: boolean;
  /**
   * What is built: the working tree at its revision, zipped by config `sourceIgnore` and
   * `sourceInclude`; or a stored build's source (`build/<id>.zip`), rebuilt under its own id
   * (`rollback`, which only a builder that reads the bucket can run); or a kept build output,
   * restored server-side with no build (`rollback` within `retention.buildsDays`).
   */
  readonly source:
    | { readonly sourceIgnore: readonly string[]; readonly sourceInclude: readonly string[] }
    | { readonly storedBuild: string }
    | { readonly storedOutput: OutputManifest };
  /** Config `paths.app` and `paths.dist`. */
  readonly paths: BuildPaths;
  /** Config `microvm.maxDurationSeconds` (the build deadline is this + 60 s). */
  readonly maxDurationSeconds: number;
  /** Site bucket (from bootstrap state). */
  readonly bucket: string;
  /** Key prefix to publish under: `site/` for the live site. */
  readonly prefix: string;
  /**
   * CloudFront distribution id (from bootstrap state) to invalidate what changed; absent for a
   * preview, whose distribution does not cache, so nothing is invalidated.
   */
  readonly distributionId?: string;
  /**
   * Config `retention.buildsDays`: keep each deployed build's output restorable that long.
   * None: not kept (a preview; a restore, whose output is kept already).
   */
  readonly keepOutputDays?: number;
  /** Object tags, `{ app, environment }`. */
  readonly tags: Readonly<Record<string, string>>;
  /** Config `seo`. */
  readonly seo: SeoSettings;
  /** `https://<domain or CDN domain>`; undefined when neither is known. */
  readonly origin: string | undefined;
  /**
   * The URL the summary names: the one that serves now (the CDN domain while the custom domain
   * is not attached). Default: {@linkcode DeployInput.origin}.
   */
  readonly url?: string | undefined;
  /** Config `invalidationMaxPaths`. */
  readonly invalidationMaxPaths: number;
  /** Config `defaultRootObject`. Default `index.html`. */
  readonly defaultRootObject?: string;
  /** Where the job runs (`--builder local|microvm`). */
  readonly builder: Builder;
  /** `--no-build`: sync the existing `paths.dist` instead of building. */
  readonly noBuild?: boolean;
  /** `--refresh`: re-upload every file (and invalidate it). */
  readonly refresh?: boolean;
  /** `--force`: allow a sync that deletes most of the live site. */
  readonly force?: boolean;
  /** AWS clients (the builder has its own S3 client for the sync). */
  readonly clients: { readonly s3: S3Client; readonly cloudfront: CloudFrontClient };
  /** Runs `git`/`jj` for the revision. */
  readonly runCommand: CommandRunner;
  /** Structured logs and warnings. */
  readonly logger: Logger;
  /** Stage and upload progress (a progress bar on a TTY). */
  readonly onProgress?: (event: DeployProgress) => void;
  /** Each line the build prints. */
  readonly onBuildOutput?: (line: string, stream: "stdout" | "stderr") => void;
  /** Backoff for the CloudFront call. */
  readonly retry?: RetryOptions;
  /** Parent of the source zip's temp dir. Default: the system temp dir. */
  readonly tempRoot?: string;
  /** Duration source. Default: the system clock. */
  readonly clock?: Clock;
  /**
   * The deploy lock, held from before the build to after the invalidation: its key
   * (`lockKey(env)` for the live site; a preview passes its own scope), the holder named to
   * whoever waits, how long to wait, and `--force-unlock`. None: no lock (`plan`).
   */
  readonly lock?: DeployLockInput;
  /**
   * Where this target's owed invalidation is recorded (`owedInvalidationKey(env)`; a preview
   * passes its own). None: paths owed by a failed run are not kept.
   */
  readonly owedKey?: string;
  /**
   * Where the build that goes live is recorded (`liveBuildKey(env)`). None: a preview, which
   * `history` does not show.
   */
  readonly liveKey?: string;
  /**
   * Keep the files the build no longer has for open tabs: the kept list's key
   * (`keptFilesKey(env)`, read before the job and written after it) and config
   * `retention.previousDays`. None: delete them at once (a preview).
   */
  readonly retention?: { readonly key: string; readonly previousDays: number };
  /** Waits while another deploy holds the lock. Default: a real timer. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Aborted on Ctrl-C/SIGTERM: the build is stopped, and the deploy stops before its next step. */
  readonly signal?: AbortSignal;
  /** Where the live site's redirect and header rules go; none (a preview): not applied. */
  readonly routing?: RoutingTarget;
  /** The build caches' scope (site and branch); none (`--no-cache`): no cache read or kept. */
  readonly cache?: JobCacheScope;
  /** Config `build.env`, its `${VAR}`s filled. */
  readonly buildEnv?: Readonly<Record<string, string>>;
  /** Config `build.secrets` (names only; the builder reads the values). */
  readonly buildSecrets?: Readonly<Record<string, string>>;
  /**
   * The production run's PDS stage (`pds_stage.ts`): its steps before the build and after the
   * publish, outside the lock. None: no PDS steps (other environments, previews, tests).
   */
  readonly pds?: PdsStage;
}

/**
 * Where a deploy's time went, in milliseconds, step by step (`--json` `steps`; the summary's
 * last line). `build` counts unpacking and, in a MicroVM, its launch; a step that did not run
 * is 0.
 */
export interface DeploySteps {
  readonly revision: number;
  readonly zip: number;
  readonly cacheRestore: number;
  readonly install: number;
  readonly build: number;
  readonly rules: number;
  readonly sync: number;
  readonly invalidation: number;
}

/** The dependency cache's part in a deploy or plan (`--json` `cache`). */
export interface DeployCacheReport {
  /** `--no-cache`, or a restore (nothing built): the cache was not used. */
  readonly used: boolean;
  /** Whether the dependencies came from the cache. */
  readonly hit: boolean;
  /** Whether framework caches were restored. */
  readonly frameworkHit: boolean;
  /** Its key; null when the install is not cached. */
  readonly key: string | null;
}

/** A file of an earlier build kept live for open tabs, as `plan` and `deploy` show it. */
export interface KeptFileView {
  /** Site-relative key. */
  readonly key: string;
  /** Size in bytes. */
  readonly size: number;
  /** When the build stopped shipping it (ISO 8601). */
  readonly since: string;
  /** When its grace ends (ISO 8601): the first deploy from then on deletes it. */
  readonly until: string;
}

/** What a deploy would do (`deploy plan`, and `--json`). */
export interface DeployPlan {
  /** The revision built. */
  readonly revision: string;
  /** Files to upload, in order, with why. */
  readonly uploads: readonly { key: string; size: number; reason: UploadReason }[];
  /** Keys to delete: pages and SEO files the build dropped, and kept files past their grace. */
  readonly deletes: readonly string[];
  /** Files of earlier builds that stay live for open tabs, by key. */
  readonly kept: readonly KeptFileView[];
  /** Kept files whose grace has passed, deleted finally (a part of `deletes`). */
  readonly expired: readonly string[];
  /** Files already live. */
  readonly unchanged: number;
  /** Bytes to upload. */
  readonly bytes: number;
  /** Paths to invalidate (`[]` for none, `["/*"]` past the cap). */
  readonly invalidation: readonly string[];
  /** Warnings (e.g. sitemap skipped). */
  readonly warnings: readonly string[];
  /** What the rules would change on CloudFront; none for a preview. */
  readonly rules?: RulesReport;
  /** Whether the build cache was hit. */
  readonly cache: DeployCacheReport;
  /** Where the plan's time went. */
  readonly steps: DeploySteps;
}

/** What a deploy did (the summary). */
export interface DeploySummary {
  /** The revision deployed, e.g. `3f2a1b9c8d7e-dirty`. */
  readonly revision: string;
  /** Files uploaded. */
  readonly uploaded: number;
  /** Files deleted. */
  readonly deleted: number;
  /** Files of earlier builds that stay live for open tabs, by key. */
  readonly kept: readonly KeptFileView[];
  /** Kept files whose grace had passed, deleted finally (counted in `deleted`). */
  readonly expired: readonly string[];
  /** Files unchanged. */
  readonly unchanged: number;
  /** Bytes uploaded. */
  readonly bytesUploaded: number;
  /** Wall time in milliseconds. */
  readonly durationMs: number;
  /** The invalidation sent, or undefined when nothing changed. */
  readonly invalidation: { readonly id: string; readonly paths: readonly string[] } | undefined;
  /** The site URL, when known. */
  readonly url: string | undefined;
  /** Keys that changed or were deleted. */
  readonly changedKeys: readonly string[];
  /** Warnings shown to the user. */
  readonly warnings: readonly string[];
  /** What the rules changed on CloudFront before the sync; none for a preview. */
  readonly rules?: RulesReport | undefined;
  /** Whether the build cache was hit. */
  readonly cache: DeployCacheReport;
  /** Where the deploy's time went. */
  readonly steps: DeploySteps;
}

/** The build's name, and the job run over the source (zip, stored source or the existing output). */
interface Ran {
  readonly revision: Pick<Revision, "id">;
  readonly outcome: JobOutcome;
  /** The source zip's warnings (an ignored include). */
  readonly warnings: readonly string[];
  /** The kept list the job started from. */
  readonly kept: readonly KeptFile[];
}

/** A stage and when it started (clock milliseconds): what {@linkcode deploySteps} adds up. */
export interface StageStart {
  /** The stage. */
  readonly stage: DeployStage;
  /** When it started. */
  readonly at: number;
}

/**
 * Reads the revision, zips the source (or, with `noBuild`, takes the existing `paths.dist`) and
 * runs the build-and-publish job through the builder.
 */
async function runPipelineJob(
  input: DeployInput,
  dryRun: boolean,
  stages: StageStart[],
): Promise<Ran> {
  const clock = input.clock ?? systemClock;
  const stage = (s: DeployStage) => {
    // Ctrl-C between steps: stop before the next one (the build and the sync stop themselves).
    if (input.signal?.aborted) {
      throw interruptedError(`the deploy, before ${DEPLOY_STAGES[s].name}`);
    }
    stages.push({ stage: s, at: clock.now() });
    input.onProgress?.({ kind: "stage", stage: s, ...(dryRun ? { plan: true as const } : {}) });
  };
  const { source } = input;
  const warnings: string[] = [];
  let revision: Pick<Revision, "id">;
  if ("storedBuild" in source) {
    revision = { id: source.storedBuild };
  } else if ("storedOutput" in source) {
    revision = { id: source.storedOutput.id };
  } else {
    stage("revision");
    const read = await readRevision(input.repoRoot, input.runCommand);
    input.logger.info("revision", { revision: read.id, vcs: read.vcs });
    revision = read;
  }
  const kept = input.retention === undefined ? [] : await readKeptFiles({
    s3: input.clients.s3,
    bucket: input.bucket,
    key: input.retention.key,
  });
  const job = (source: JobInput["source"]): JobInput => ({
    buildId: revision.id,
    source,
    paths: input.paths,
    maxDurationSeconds: input.maxDurationSeconds,
    target: { bucket: input.bucket, prefix: input.prefix },
    tags: input.tags,
    seo: input.seo,
    production: input.isProduction,
    origin: input.origin,
    refresh: input.refresh ?? false,
    force: input.force ?? false,
    dryRun,
    ...(input.owedKey === undefined || dryRun ? {} : { owedKey: input.owedKey }),
    ...(input.retention === undefined ? {} : {
      retention: {
        previousDays: input.retention.previousDays,
        now: new Date((input.clock ?? systemClock).now()).toISOString(),
        kept,
      },
    }),
    ...(input.routing ? { routing: input.routing } : {}),
    ...(input.keepOutputDays === undefined || dryRun
      ? {}
      : { keepOutputDays: input.keepOutputDays }),
    ...(input.cache ? { cache: input.cache } : {}),
    ...(input.buildEnv && Object.keys(input.buildEnv).length > 0
      ? { buildEnv: input.buildEnv }
      : {}),
    ...(input.buildSecrets && Object.keys(input.buildSecrets).length > 0
      ? { buildSecrets: input.buildSecrets }
      : {}),
  });
  const hooks = {
    onStage: stage,
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.onBuildOutput ? { onOutput: input.onBuildOutput } : {}),
    ...(dryRun ? {} : {
      onSyncProgress: (p: SyncProgress) => input.onProgress?.({ kind: "sync", ...p }),
    }),
  };
  if ("storedOutput" in source) {
    const outcome = await input.builder.run(job({ output: source.storedOutput }), hooks);
    return { revision, warnings, outcome, kept };
  }
  if ("storedBuild" in source) {
    stage("build");
    const outcome = await input.builder.run(job({ bucketKey: sourceKey(revision.id) }), hooks);
    return { revision, warnings, outcome, kept };
  }
  if (input.noBuild) {
    const builtDir = `${input.repoRoot}/${stripPath(input.paths.dist)}`;
    return { revision, warnings, outcome: await input.builder.run(job({ builtDir }), hooks), kept };
  }
  stage("zip");
  const tmp = await makeWorkDir("deploy-src-", input.tempRoot);
  try {
    // Fails on a bad sourceInclude before anything is built or uploaded.
    const zip = await createSourceZip({
      repoRoot: input.repoRoot,
      sourceIgnore: source.sourceIgnore,
      sourceInclude: source.sourceInclude,
      outPath: `${tmp.path}/source.zip`,
      onWarning: (w) => {
        warnings.push(w);
        input.logger.warn(w);
      },
    });
    input.logger.info("source zipped", { files: zip.files.length, bytes: zip.bytes });
    stage("build");
    const outcome = await input.builder.run(job({ zip: zip.path }), hooks);
    return { revision, warnings, outcome, kept };
  } finally {
    await tmp.remove();
  }
}

/**
 * Plans a deploy without changing anything remote (nor the output directory: the SEO files
 * are laid over it in memory): the same job with `dryRun`, reporting what would be uploaded,
 * deleted and invalidated.
 *
 * @param input resolved config, state, flags and dependencies
 * @returns the plan
 * @throws DeployError from the zip or build; `plan_unsupported` for the MicroVM builder, whose
 *   build reports what it published, not a plan (plan with `--builder local` or `--no-build`)
 *
 * @example
 * ```ts
 * import type { DeployInput } from "./deploy.ts";
 *
 * async function printPlan(input: DeployInput) {
 *   const plan = await planDeploy(input);
 *   console.log(JSON.stringify(plan));
 * }
 * ```
 */
export async function planDeploy(input: DeployInput): Promise<DeployPlan> {
  const clock = input.clock ?? systemClock;
  const stages: StageStart[] = [];
  const { revision, outcome, warnings } = await runPipelineJob(input, true, stages);
  const steps = deploySteps(stages, clock.now(), outcome.build);
  const result = outcome.sync;
  if (result === undefined) throw new Error(`the ${input.builder.name} builder returned no plan`);
  const uploads = result.plan.uploads.map((u) => ({
    key: u.file.key,
    size: u.file.size,
    reason: u.reason,
  }));
  return {
    revision: revision.id,
    uploads,
    deletes: result.plan.deletes,
    ...keptViews(input, result),
    unchanged: result.unchanged,
    bytes: uploads.reduce((n, u) => n + u.size, 0),
    invalidation: planInvalidation(
      result.changedKeys,
      input.invalidationMaxPaths,
      input.defaultRootObject,
    ),
    ...(outcome.rules ? { rules: outcome.rules } : {}),
    cache: cacheReport(input, outcome.build),
    steps,
    warnings: result.refusal
      ? [
        ...warnings,
        ...outcome.warnings,
        `deploy would refuse: ${result.refusal.message} (${result.refusal.hint})`,
      ]
      : [...warnings, ...outcome.warnings],
  };
}

/**
 * Runs a deploy under the scope's lock: revision → zip → the build-and-publish job (build, SEO
 * files laid over the output in memory, sync: assets, HTML, deletions) → one invalidation of
 * the changed paths and of any an earlier run still owed (none when nothing changed and
 * nothing is owed). The lock is released at the end, whatever happened. A production run's
 * PDS stage ({@linkcode DeployInput.pds}) runs before the lock is taken and after it is
 * released; it never fails the deploy.
 *
 * @param input resolved config, state, flags and dependencies
 * @returns the summary to print
 * @throws DeployError `deploy_locked`; from the zip, build or sync; `interrupted`; an AWS
 *   error that outlived its retries
 *
 * @example
 * ```ts
 * import type { S3Client } from "@aws-sdk/client-s3";
 * import type { Logger } from "@org/shared";
 * import { createLocalBuilder } from "../builders/local.ts";
 * import type { DeployInput } from "./deploy.ts";
 *
 * const deployLocally = (input: DeployInput, s3: S3Client, logger: Logger) =>
 *   runDeploy({ ...input, builder: createLocalBuilder({ s3, logger }) });
 * ```
 */
export async function runDeploy(input: DeployInput): Promise<DeploySummary> {
  await input.pds?.beforeBuild?.();
  const summary = await publish(input);
  await input.pds?.afterPublish?.();
  return summary;
}

/** The locked part of {@linkcode runDeploy}: the job, the kept list, the invalidation. */
async function publish(input: DeployInput): Promise<DeploySummary> {
  const clock = input.clock ?? systemClock;
  const started = clock.now();
  await using _lock = await takePublishingLock(input);
  const stages: StageStart[] = [];
  const { revision, outcome, warnings, kept } = await runPipelineJob(input, false, stages);
  // What the sync kept is the next deploy's starting point (none told: a job that predates it).
  if (input.retention && outcome.kept) {
    const at = { s3: input.clients.s3, bucket: input.bucket, key: input.retention.key };
    await writeKeptFiles(at, kept, outcome.kept);
  }
  if (input.liveKey !== undefined) {
    const at = { s3: input.clients.s3, bucket: input.bucket };
    await writeLiveBuild(at, input.liveKey, revision.id, clock.now());
  }
  // Past this point the site is published: the invalidation is sent even after a Ctrl-C. A
  // preview has no distribution to invalidate (its distribution does not cache).
  if (input.distributionId !== undefined) {
    stages.push({ stage: "invalidate", at: clock.now() });
    input.onProgress?.({ kind: "stage", stage: "invalidate" });
  }
  const sent = await invalidateOwed(
    input,
    outcome.changedKeys,
    revision.id,
    outcome.changeDigest ?? "",
  );
  const ended = clock.now();
  const summary: DeploySummary = {
    revision: revision.id,
    uploaded: outcome.uploaded,
    deleted: outcome.deleted,
    ...keptViews(input, outcome),
    unchanged: outcome.unchanged,
    bytesUploaded: outcome.bytesUploaded,
    changedKeys: outcome.changedKeys,
    warnings: [...warnings, ...outcome.warnings],
    durationMs: ended - started,
    invalidation: sent ? { id: sent.id, paths: sent.paths } : undefined,
    url: input.url ?? input.origin,
    rules: outcome.rules,
    cache: cacheReport(input, outcome.build),
    steps: deploySteps(stages, ended, outcome.build),
  };
  input.logger.info("deployed", {
    revision: summary.revision,
    uploaded: summary.uploaded,
    deleted: summary.deleted,
    kept: summary.kept.length,
    unchanged: summary.unchanged,
    invalidated: sent?.paths.length ?? 0,
  });
  return summary;
}

/**
 * Where the time went (pure): each stage lasts until the next one starts (the last until `end`);
 * the build stage is split into the job's cache restore, install and the rest.
 *
 * @param stages the stages in the order they started, with clock readings
 * @param end clock reading at the end
 * @param build what the job's build reported (none: nothing was built, or a builder that does
 *   not report it)
 * @returns milliseconds per step
 */
export function deploySteps(
  stages: readonly StageStart[],
  end: number,
  build: JobBuildReport | undefined,
): DeploySteps {
  const spent = new Map<DeployStage, number>();
  stages.forEach(({ stage, at }, i) => {
    const until = stages[i + 1]?.at ?? end;
    spent.set(stage, (spent.get(stage) ?? 0) + Math.max(0, until - at));
  });
  const of = (...names: DeployStage[]) => names.reduce((n, s) => n + (spent.get(s) ?? 0), 0);
  const cacheRestore = build?.timings.cacheRestoreMs ?? 0;
  const install = build?.timings.installMs ?? 0;
  return {
    revision: of("revision"),
    zip: of("zip"),
    cacheRestore,
    install,
    build: Math.max(0, of("build") - cacheRestore - install),
    rules: of("rules", "deployed"),
    sync: of("seo", "sync"),
    invalidation: of("invalidate"),
  };
}

function cacheReport(input: DeployInput, build: JobBuildReport | undefined): DeployCacheReport {
  return {
    used: input.cache !== undefined && build !== undefined,
    hit: build?.cacheHit ?? false,
    frameworkHit: build?.frameworkCacheHit ?? false,
    key: build?.cacheKey ?? null,
  };
}

/** What a job kept and finally deleted, as `plan` and `deploy` show it. */
function keptViews(
  input: DeployInput,
  out: { readonly kept?: readonly KeptFile[]; readonly expired?: readonly string[] },
): Pick<DeployPlan, "kept" | "expired"> {
  const days = input.retention?.previousDays ?? 0;
  return {
    kept: (out.kept ?? []).map((f) => ({ ...f, until: keptUntil(f, days) })),
    expired: out.expired ?? [],
  };
}
