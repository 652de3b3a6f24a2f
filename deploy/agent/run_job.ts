/**
 * The build agent's work for one job: download and unpack the source, install and build, add
 * the SEO files, sync with the same engine as a local deploy, store the changed-keys manifest
 * and the build record, and log the marker line that tells the CLI how it ended.
 *
 * @module
 */
import { GetObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { type Clock, type Logger, systemClock } from "@org/shared";
import { buildDeadlineMs } from "../build/builder.ts";
import { runBuildSteps } from "../build/run_steps.ts";
import { extractZip } from "../build/unzip.ts";
import { finishRecord } from "../builds/record.ts";
import type { BuildRecord, ChangedManifest } from "../builds/record.ts";
import { putBuildRecord, putManifest } from "../builds/store.ts";
import { isNotFound } from "../aws/errors.ts";
import { DeployError } from "../errors.ts";
import { generateSeoFiles, listKeys } from "../seo/files.ts";
import { syncSite } from "../sync/engine.ts";
import { type AgentJob, doneMarker, failedMarker } from "./job.ts";

/** What the agent needs from the outside. */
export interface AgentDeps {
  /** S3 client for the site bucket. */
  readonly s3: S3Client;
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
 * Runs one build job to the end. Never throws for a build problem: the outcome is logged as
 * `build:done:<id>` or `build:failed:<id>:<reason>`, stored as the build record, and returned.
 *
 * @param job the job (already checked with `parseAgentJob`)
 * @param deps S3, log writer, clock
 * @returns the outcome
 *
 * @example
 * ```ts
 * const outcome = await runAgentJob(job, { s3, log: (line) => console.log(line) });
 * ```
 */
export async function runAgentJob(job: AgentJob, deps: AgentDeps): Promise<AgentOutcome> {
  const clock = deps.clock ?? systemClock;
  const at = { s3: deps.s3, bucket: job.bucket };
  const base: BuildRecord = {
    version: 1,
    id: job.buildId,
    status: "running",
    startedAt: job.startedAt,
    finishedAt: null,
    durationMs: null,
    source: job.sourceKey,
    logGroup: job.logGroup,
    logStream: job.logStream,
  };
  const work = await Deno.makeTempDir({
    prefix: "deploy-agent-",
    ...(deps.tempRoot ? { dir: deps.tempRoot } : {}),
  });
  try {
    deps.log(`build:start:${job.buildId}`);
    const zipPath = `${work}/source.zip`;
    await download(deps.s3, job.bucket, job.sourceKey, zipPath);
    const root = `${work}/src`;
    await Deno.mkdir(root);
    const files = await extractZip(zipPath, root);
    deps.log(`source: ${files} files from s3://${job.bucket}/${job.sourceKey}`);
    const distDir = await runBuildSteps({
      rootDir: root,
      paths: job.paths,
      deadlineMs: buildDeadlineMs(job.maxDurationSeconds),
      onOutput: (line) => deps.log(line),
      ...(deps.env ? { env: deps.env } : {}),
    });
    const seo = generateSeoFiles(await listKeys(distDir), job.seo, {
      isProduction: job.isProduction,
      origin: job.origin ?? undefined,
    });
    const logger = lineLogger(deps.log);
    for (const warning of seo.warnings) logger.warn(warning);
    const result = await syncSite({
      s3: deps.s3,
      bucket: job.bucket,
      prefix: job.prefix,
      distDir,
      overlay: seo.files,
      tags: job.tags,
      refresh: job.refresh ?? false,
      force: job.force ?? false,
    });
    const manifest: ChangedManifest = {
      version: 1,
      id: job.buildId,
      changedKeys: result.changedKeys,
      uploaded: result.uploaded.length,
      deleted: result.deleted.length,
      unchanged: result.unchanged,
      bytesUploaded: result.bytesUploaded,
      changeDigest: result.changeDigest,
    };
    deps.log(
      `sync: ${manifest.uploaded} uploaded, ${manifest.deleted} deleted, ${manifest.unchanged} unchanged`,
    );
    await putManifest(at, manifest);
    await putBuildRecord(
      at,
      finishRecord(base, clock.now(), {
        status: "done",
        uploaded: manifest.uploaded,
        deleted: manifest.deleted,
        unchanged: manifest.unchanged,
        bytesUploaded: manifest.bytesUploaded,
      }),
    );
    deps.log(doneMarker(job.buildId));
    return { ok: true, manifest };
  } catch (err) {
    const reason = err instanceof DeployError
      ? `${err.code}: ${err.message}`
      : err instanceof Error
      ? err.message
      : String(err);
    try {
      await putBuildRecord(at, finishRecord(base, clock.now(), { status: "failed", reason }));
    } catch (recordErr) {
      deps.log(`warning: the build record could not be stored: ${String(recordErr)}`);
    }
    deps.log(failedMarker(job.buildId, reason));
    return { ok: false, reason };
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

async function download(s3: S3Client, bucket: string, key: string, path: string): Promise<void> {
  let out;
  try {
    out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  } catch (err) {
    if (isNotFound(err)) {
      throw new DeployError("build_source_missing", `s3://${bucket}/${key} does not exist`);
    }
    throw err;
  }
  const body = out.Body?.transformToWebStream();
  if (!body) throw new DeployError("build_source_missing", `s3://${bucket}/${key} is empty`);
  await body.pipeTo((await Deno.create(path)).writable);
}

function lineLogger(write: (line: string) => void): Logger {
  const line = (level: string) => (msg: string) => write(`${level}: ${msg}`);
  const logger: Logger = {
    debug: () => {},
    info: line("info"),
    warn: line("warning"),
    error: line("error"),
    child: () => logger,
  };
  return logger;
}
