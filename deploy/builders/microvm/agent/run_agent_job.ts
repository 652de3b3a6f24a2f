/**
 * The build agent's entry for one job: calls {@linkcode runJob} (the same function the local
 * builder calls) on the job the CLI sent (`fromWire(payload)`), and logs the lines the CLI follows: `build:start:<id>`, the source size, the build's
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
import { doneMarker, failedMarker } from "./markers.ts";
import { bucketBuildCache } from "../../../build_cache/bucket_build_cache.ts";
import type { SecretReader } from "../../../build_settings/build_secrets.ts";
import type { RoutingDeps } from "../../../routing/publish_routing.ts";

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
  /** Reads `build.secrets` with the builder role (Secrets Manager in the site's region). */
  readonly readSecret?: SecretReader;
}

/** How a job ended. */
export type AgentOutcome =
  | { readonly ok: true; readonly manifest: ChangedManifest }
  | { readonly ok: false; readonly reason: string };

/**
 * Runs one job to the end. Never throws for a build problem: the outcome is logged as
 * `build:done:<id>` or `build:failed:<id>:<reason>`, stored as the build record (by the job),
 * and returned.
 *
 * @param job the job (read with `fromWire`)
 * @param deps S3, log writer, clock
 * @returns the outcome
 *
 * @example
 * ```ts
 * import type { S3Client } from "@aws-sdk/client-s3";
 * import { fromWire } from "../../../job/job_input.ts";
 *
 * const runLogged = (payload: string, s3: S3Client) =>
 *   runAgentJob(fromWire(payload), { s3, log: (line) => console.log(line) });
 * ```
 */
export async function runAgentJob(job: JobInput, deps: AgentDeps): Promise<AgentOutcome> {
  deps.log(`build:start:${job.buildId}`);
  const logger = lineLogger(deps.log);
  try {
    const outcome = await runJob(job, {
      s3: deps.s3,
      // The VM keeps nothing between builds: its cache is objects in the site bucket.
      openCache: (scope, workDir) =>
        bucketBuildCache({
          at: { s3: deps.s3, bucket: job.target.bucket },
          workDir,
          logger,
          scope,
        }),
      ...(deps.readSecret ? { readSecret: deps.readSecret } : {}),
      ...(deps.routing ? { routing: deps.routing } : {}),
      logger,
      onUnpacked: (files) => deps.log(`source: ${files} files from ${sourceName(job)}`),
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

/** Where the job's source is, for the log. */
function sourceName(job: JobInput): string {
  return "bucketKey" in job.source
    ? `s3://${job.target.bucket}/${job.source.bucketKey}`
    : "zip" in job.source
    ? job.source.zip
    : "the output";
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
