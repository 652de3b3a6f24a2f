/**
 * The build agent's entry for one job: turns the job description the CLI sent into the
 * build-and-publish job's input, calls {@linkcode runJob} (the same function the local builder
 * calls), and logs the lines the CLI follows: `build:start:<id>`, the source size, the build's
 * own output, warnings, the sync counts and the marker that tells how it ended.
 *
 * @module
 */
import type { S3Client } from "@aws-sdk/client-s3";
import type { Clock, Logger } from "@org/shared";
import type { ChangedManifest } from "../../../build_records/record.ts";
import {
  changedManifest,
  DEPLOYED_STEP,
  jobFailureReason,
  type JobInput,
  runJob,
} from "../../../job/job.ts";
import { type AgentJob, doneMarker, failedMarker } from "./job_description.ts";
import { readKeptFiles } from "../../../state/kept_files.ts";
import type { KeptFile } from "../../../sync/retention.ts";
import { getRoutingTarget } from "../../../build_records/store.ts";
import type { RoutingDeps, RoutingTarget } from "../../../routing/publish_routing.ts";

/** What the agent needs from the outside. */
export interface AgentDeps {
  /** S3 client for the site bucket. */
  readonly s3: S3Client;
  /** CloudFront (and the rules store) for a job with rules to put live. */
  readonly routing?: RoutingDeps;
  /** Writes one line to the build's log (stdout inside the VM, which the service ships). */
  readonly log: (line: string) => void;
  /** End time source. Default: the system clock. */
  readonly clock?: Clock;
  /** Parent of the work directory. Default: the system temp dir. */
  readonly tempRoot?: string;
  /** Extra environment for install and build. */
  readonly env?: Readonly<Record<string, string>>;
}

/** How a job ended. */
export type AgentOutcome =
  | { readonly ok: true; readonly manifest: ChangedManifest }
  | { readonly ok: false; readonly reason: string };

/**
 * The build-and-publish job's input for a job description (pure): the source is the stored
 * zip, and the job finishes the build record the CLI opened.
 *
 * @param job the job description
 * @param kept the kept list read from `job.retention.keptKey` (none: nothing kept)
 * @returns the job's input
 */
export function jobInputOf(
  job: AgentJob,
  kept: readonly KeptFile[] = [],
  routing?: RoutingTarget,
): JobInput {
  return {
    buildId: job.buildId,
    source: { bucketKey: job.sourceKey },
    paths: job.paths,
    maxDurationSeconds: job.maxDurationSeconds,
    target: { bucket: job.bucket, prefix: job.prefix },
    tags: job.tags,
    seo: job.seo,
    production: job.isProduction,
    origin: job.origin ?? undefined,
    ...(job.refresh ? { refresh: true } : {}),
    ...(job.force ? { force: true } : {}),
    ...(job.retention
      ? { retention: { previousDays: job.retention.previousDays, now: job.retention.now, kept } }
      : {}),
    ...(routing ? { routing } : {}),
    ...(job.keepOutputDays === undefined ? {} : { keepOutputDays: job.keepOutputDays }),
    record: {
      startedAt: job.startedAt,
      source: job.sourceKey,
      logGroup: job.logGroup,
      logStream: job.logStream,
    },
  };
}

/**
 * Runs one job to the end. Never throws for a build problem: the outcome is logged as
 * `build:done:<id>` or `build:failed:<id>:<reason>`, stored as the build record (by the job),
 * and returned.
 *
 * @param job the job (already checked with `parseAgentJob`)
 * @param deps S3, log writer, clock
 * @returns the outcome
 *
 * @example
 * ```ts
 * import type { S3Client } from "@aws-sdk/client-s3";
 * import type { AgentJob } from "./job_description.ts";
 *
 * const runLogged = (job: AgentJob, s3: S3Client) =>
 *   runAgentJob(job, { s3, log: (line) => console.log(line) });
 * ```
 */
export async function runAgentJob(job: AgentJob, deps: AgentDeps): Promise<AgentOutcome> {
  deps.log(`build:start:${job.buildId}`);
  try {
    const keptKey = job.retention?.keptKey;
    const kept = keptKey === undefined
      ? []
      : await readKeptFiles({ s3: deps.s3, bucket: job.bucket, key: keptKey });
    const routing = job.routingKey === undefined
      ? undefined
      : await getRoutingTarget({ s3: deps.s3, bucket: job.bucket }, job.routingKey);
    const outcome = await runJob(jobInputOf(job, kept, routing), {
      s3: deps.s3,
      ...(deps.routing ? { routing: deps.routing } : {}),
      logger: lineLogger(deps.log),
      onUnpacked: (files) =>
        deps.log(`source: ${files} files from s3://${job.bucket}/${job.sourceKey}`),
      onOutput: (line) => deps.log(line),
      // The CLI relays the build's log: the one step that can take minutes shows there.
      onStage: (stage) => {
        if (stage === "deployed") deps.log(`rules: ${DEPLOYED_STEP}`);
      },
      ...(deps.clock ? { clock: deps.clock } : {}),
      ...(deps.tempRoot ? { tempRoot: deps.tempRoot } : {}),
      ...(deps.env ? { env: deps.env } : {}),
    });
    const manifest = changedManifest(job.buildId, outcome);
    deps.log(
      `sync: ${manifest.uploaded} uploaded, ${manifest.deleted} deleted, ${manifest.unchanged} unchanged`,
    );
    const lingering = manifest.kept?.length ?? 0;
    if (lingering > 0) deps.log(`sync: ${lingering} file(s) of earlier builds kept for open tabs`);
    deps.log(doneMarker(job.buildId));
    return { ok: true, manifest };
  } catch (err) {
    const reason = jobFailureReason(err);
    deps.log(failedMarker(job.buildId, reason));
    return { ok: false, reason };
  }
}

/** Warnings and errors as log lines; progress records stay out of the build's log. */
function lineLogger(write: (line: string) => void): Logger {
  const line = (level: string) => (msg: string) => write(`${level}: ${msg}`);
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: line("warning"),
    error: line("error"),
    child: () => logger,
  };
  return logger;
}
