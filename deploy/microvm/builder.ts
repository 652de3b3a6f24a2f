/**
 * The MicroVM builder (`--builder microvm`): uploads the source zip, launches a builder
 * MicroVM whose agent installs, builds and syncs, follows its log stream to the end, and
 * reports what changed. The VM is always terminated afterwards.
 *
 * @module
 */
import {
  GetMicrovmCommand,
  type LambdaMicrovmsClient,
  RunMicrovmCommand,
  type RunMicrovmRequest,
  TerminateMicrovmCommand,
} from "@aws-sdk/client-lambda-microvms";
import type { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";
import { PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { type Clock, systemClock } from "@org/shared";
import { type AgentBundle, buildAgentBundle } from "../agent/bundle.ts";
import { type AgentJob, MAX_PAYLOAD_BYTES, parseMarker } from "../agent/job.ts";
import type { Builder, BuildJob, BuildOutput } from "../build/builder.ts";
import { type BuildRecord, finishRecord, sourceKey } from "../builds/record.ts";
import { getManifest, putBuildRecord, sourceExists } from "../builds/store.ts";
import type { MicrovmIdle } from "../config/site_config.ts";
import { builderLogGroup } from "../config/names.ts";
import { DeployError } from "../errors.ts";
import type { SeoSettings } from "../seo/policy.ts";
import { nextPollDelay, pastDeadline, waitDeadline } from "./deadline.ts";
import { type BuilderImageSettings, ensureBuilderImage, type ReadyImage } from "./image.ts";
import { createKeepAlive, type KeepAlive, keepAliveIntervalMs } from "./keep_alive.ts";
import { retryLaunch } from "./launch_retry.ts";
import { createLogTail } from "./log_tail.ts";

/** Everything the MicroVM builder needs besides the job. */
export interface MicrovmBuilderOptions {
  /** AWS clients in the site's region. */
  readonly clients: {
    readonly microvms: LambdaMicrovmsClient;
    readonly logs: CloudWatchLogsClient;
    readonly s3: S3Client;
  };
  /** Environment name. */
  readonly env: string;
  /** `siteName` (names the image and the log group). */
  readonly siteName: string;
  /** The site's region (passed to the agent for its S3 client). */
  readonly region: string;
  /** The site bucket. */
  readonly bucket: string;
  /** Key prefix of the live site, normally `site/`. */
  readonly prefix: string;
  /** Config `microvm`: memory (image), idle policy (passed unchanged), max duration. */
  readonly microvm: {
    readonly memory: number;
    readonly maxDurationSeconds: number;
    readonly idle: MicrovmIdle;
  };
  /** Base image and roles (from the environment state). */
  readonly image: BuilderImageSettings;
  /** Config `seo`. */
  readonly seo: SeoSettings;
  /** Production and not a preview. */
  readonly isProduction: boolean;
  /** Site origin for the sitemap. */
  readonly origin: string | undefined;
  /** Object tags, and the image's resource tags. */
  readonly tags: Readonly<Record<string, string>>;
  /** Time source. Default: the system clock. */
  readonly clock?: Clock;
  /** Waits; injected so tests do not sleep. Default: a timer. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** A fresh unique token per launch. Default `crypto.randomUUID`. */
  readonly newToken?: () => string;
  /** Log poll interval. Default 2000 ms. */
  readonly pollIntervalMs?: number;
  /** The keep-alive. Default: auth token + `GET /healthz` through the VM endpoint. */
  readonly keepAlive?: KeepAlive;
  /** The agent bundle. Default: built from this workspace. */
  readonly bundle?: () => Promise<AgentBundle>;
  /** Status lines ("launching the builder"), for the terminal. */
  readonly onStatus?: (text: string) => void;
  /** Warnings (a failed terminate, a failed keep-alive). */
  readonly onWarning?: (text: string) => void;
}

/** A build that can also run on a stored source (`rollback`). */
export interface MicrovmBuilder extends Builder {
  /**
   * Builds from the already stored `build/<id>.zip`.
   *
   * @throws DeployError `build_source_missing` when it is gone; otherwise as `build()`
   */
  buildStored(job: Omit<BuildJob, "sourceZip">): Promise<BuildOutput & { kind: "synced" }>;
}

/** Log lines kept for a failure message. */
const TAIL_LINES = 20;

/**
 * The `RunMicrovm` input for one build.
 *
 * @param o builder options
 * @param image the image to run
 * @param job the agent job (becomes the run hook payload)
 * @param clientToken the launch's idempotency token
 * @returns the request
 */
export function runRequest(
  o: Pick<MicrovmBuilderOptions, "microvm" | "image">,
  image: ReadyImage,
  job: AgentJob,
  clientToken: string,
): RunMicrovmRequest {
  const payload = JSON.stringify(job);
  if (new TextEncoder().encode(payload).byteLength > MAX_PAYLOAD_BYTES) {
    throw new DeployError("build_failed", "the build job is larger than the 16 KB run payload", {
      hint: "shorten seo.robotsContent",
    });
  }
  return {
    imageIdentifier: image.imageArn,
    imageVersion: image.imageVersion,
    ...(o.image.executionRoleArn ? { executionRoleArn: o.image.executionRoleArn } : {}),
    // The spec passes the idle object through unchanged.
    idlePolicy: { ...o.microvm.idle },
    logging: { cloudWatch: { logGroup: job.logGroup, logStream: job.logStream } },
    runHookPayload: payload,
    maximumDurationInSeconds: o.microvm.maxDurationSeconds,
    clientToken,
  };
}

/**
 * The log stream a build attempt writes to: `build-<id>-<first 8 of the token>`, so a rebuild
 * of the same id (a rollback, a dirty tree) gets a stream of its own.
 *
 * @param buildId the build id
 * @param token the launch token
 * @returns the stream name
 */
export function buildLogStream(buildId: string, token: string): string {
  return `build-${buildId}-${token.replace(/[^\w]/g, "").slice(0, 8)}`;
}

/**
 * Creates the MicroVM builder.
 *
 * `build(job)` uploads `job.sourceZip` to `build/<id>.zip`, makes sure the builder image is
 * current, writes a `running` record, launches the VM (client token, idle policy unchanged,
 * maximum duration), streams the log lines to `job.onOutput` until the agent's marker, and
 * returns the changed keys from `builds/<id>.changed.json`. The wait ends at
 * `maxDurationSeconds + 60` s after launch. The VM is terminated in every case.
 *
 * @param o clients, site settings, image settings and test seams
 * @returns the builder
 * @throws DeployError `build_failed` (with the last log lines), `build_timeout`,
 *   `builder_image_failed`, `microvm_launch_failed`
 *
 * @example
 * ```ts
 * const builder = createMicrovmBuilder({ clients, env, siteName, region, bucket, prefix: "site/",
 *   microvm: config.microvm, image: state.builder, seo, isProduction, origin, tags });
 * await runDeploy({ ...input, builder });
 * ```
 */
export function createMicrovmBuilder(o: MicrovmBuilderOptions): MicrovmBuilder {
  const clock = o.clock ?? systemClock;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const newToken = o.newToken ?? (() => crypto.randomUUID());
  const keepAlive = o.keepAlive ?? createKeepAlive(o.clients.microvms, clock);
  const store = { s3: o.clients.s3, bucket: o.bucket };
  const logGroup = builderLogGroup(o.env, o.siteName);

  const run = async (job: Omit<BuildJob, "sourceZip">) => {
    const bundle = await (o.bundle ?? buildAgentBundle)();
    const image = await ensureBuilderImage({
      microvms: o.clients.microvms,
      store,
      name: `${o.env}-${o.siteName}-builder`,
      memoryGb: o.microvm.memory,
      logGroup,
      settings: o.image,
      bundle,
      tags: o.tags,
      clock,
      sleep,
      ...(o.onStatus ? { onStatus: o.onStatus } : {}),
    });
    const token = newToken();
    const logStream = buildLogStream(job.buildId, token);
    const startedAt = clock.now();
    const agentJob: AgentJob = {
      version: 1,
      buildId: job.buildId,
      bucket: o.bucket,
      region: o.region,
      sourceKey: sourceKey(job.buildId),
      prefix: o.prefix,
      paths: job.paths,
      seo: o.seo,
      isProduction: o.isProduction,
      origin: o.origin ?? null,
      tags: o.tags,
      ...(job.refresh ? { refresh: true } : {}),
      ...(job.force ? { force: true } : {}),
      maxDurationSeconds: job.maxDurationSeconds,
      startedAt: new Date(startedAt).toISOString(),
      logGroup,
      logStream,
    };
    const request = runRequest(
      { microvm: { ...o.microvm, maxDurationSeconds: job.maxDurationSeconds }, image: o.image },
      image,
      agentJob,
      token,
    );
    const record: BuildRecord = {
      version: 1,
      id: job.buildId,
      status: "running",
      startedAt: agentJob.startedAt,
      finishedAt: null,
      durationMs: null,
      source: agentJob.sourceKey,
      logGroup,
      logStream,
    };
    await putBuildRecord(store, record);
    o.onStatus?.("launching the builder MicroVM");
    let launched;
    try {
      launched = await retryLaunch(
        () => o.clients.microvms.send(new RunMicrovmCommand(request)),
        {
          clock,
          sleep,
          onRetry: (attempt, delay) =>
            o.onWarning?.(`RunMicrovm failed (attempt ${attempt}); retrying in ${delay} ms`),
        },
      );
    } catch (err) {
      await putBuildRecord(
        store,
        finishRecord(record, clock.now(), { status: "failed", reason: String(err) }),
      ).catch(() => {});
      throw new DeployError("microvm_launch_failed", `the builder MicroVM did not start: ${err}`, {
        hint: "check the MicroVMs service health and the builder role, then deploy again",
        cause: err,
      });
    }
    const microvmId = launched.microvmId ?? "";
    try {
      return await follow(job, record, microvmId, launched.endpoint ?? "", clock.now());
    } finally {
      try {
        await o.clients.microvms.send(
          new TerminateMicrovmCommand({ microvmIdentifier: microvmId }),
        );
      } catch (err) {
        o.onWarning?.(`the builder MicroVM ${microvmId} could not be terminated: ${err}`);
      }
    }
  };

  const follow = async (
    job: Omit<BuildJob, "sourceZip">,
    record: BuildRecord,
    microvmId: string,
    endpoint: string,
    launchedAt: number,
  ): Promise<BuildOutput & { kind: "synced" }> => {
    const deadline = waitDeadline(launchedAt, job.maxDurationSeconds);
    const tail = createLogTail(o.clients.logs, record.logGroup, record.logStream);
    const last: string[] = [];
    const pingEvery = keepAliveIntervalMs(o.microvm.idle.maxIdleDurationSeconds);
    let lastPing = -Infinity;
    let stopped: string | undefined;
    for (;;) {
      for (const line of await tail.poll()) {
        job.onOutput?.(line.message, "stdout");
        last.push(line.message);
        if (last.length > TAIL_LINES) last.shift();
        const marker = parseMarker(line.message, job.buildId);
        if (marker?.kind === "done") return await synced(job.buildId, last);
        if (marker?.kind === "failed") {
          throw new DeployError("build_failed", `the build failed: ${marker.reason}`, {
            hint: lastLinesHint(last),
          });
        }
      }
      // A VM that stopped without a marker will never write one.
      if (stopped !== undefined) {
        if (stopped === "MaximumDurationExceeded") break;
        throw new DeployError(
          "build_failed",
          `the builder MicroVM stopped before the build finished (${stopped})`,
          { hint: lastLinesHint(last) },
        );
      }
      if (pastDeadline(clock.now(), deadline)) break;
      stopped = await stoppedReason(microvmId);
      if (stopped !== undefined) continue; // read the log once more before giving up
      if (clock.now() - lastPing >= pingEvery && endpoint !== "") {
        lastPing = clock.now();
        await keepAlive({ microvmId, endpoint }).catch((err) =>
          o.onWarning?.(`keep-alive for ${microvmId} failed: ${err}`)
        );
      }
      await sleep(nextPollDelay(clock.now(), deadline, o.pollIntervalMs ?? 2000));
    }
    await putBuildRecord(
      store,
      finishRecord(record, clock.now(), {
        status: "timeout",
        reason: `no result within ${job.maxDurationSeconds + 60} s of launch`,
      }),
    ).catch(() => {});
    throw new DeployError(
      "build_timeout",
      `the build did not finish within ${job.maxDurationSeconds + 60} s of launch`,
      { hint: `raise microvm.maxDurationSeconds or speed up the build\n${lastLinesHint(last)}` },
    );
  };

  const stoppedReason = async (microvmId: string): Promise<string | undefined> => {
    try {
      const vm = await o.clients.microvms.send(
        new GetMicrovmCommand({ microvmIdentifier: microvmId }),
      );
      if (vm.state === "TERMINATED" || vm.state === "TERMINATING") {
        return vm.stateReason ?? vm.state;
      }
      return undefined;
    } catch (err) {
      // A failed status read is no reason to abandon a build that may still finish.
      o.onWarning?.(`GetMicrovm ${microvmId} failed: ${err}`);
      return undefined;
    }
  };

  const synced = async (
    id: string,
    last: readonly string[],
  ): Promise<BuildOutput & { kind: "synced" }> => {
    const manifest = await getManifest(store, id);
    if (!manifest) {
      throw new DeployError("build_failed", `the build reported done but stored no manifest`, {
        hint: lastLinesHint(last),
      });
    }
    return {
      kind: "synced",
      changedKeys: manifest.changedKeys,
      uploaded: manifest.uploaded,
      deleted: manifest.deleted,
      unchanged: manifest.unchanged,
      bytesUploaded: manifest.bytesUploaded,
      ...(manifest.changeDigest ? { changeDigest: manifest.changeDigest } : {}),
    };
  };

  return {
    name: "microvm",
    async build(job: BuildJob) {
      const body = await Deno.readFile(job.sourceZip);
      o.onStatus?.(`uploading the source (${body.byteLength} bytes)`);
      await o.clients.s3.send(
        new PutObjectCommand({
          Bucket: o.bucket,
          Key: sourceKey(job.buildId),
          Body: body,
          ContentLength: body.byteLength,
          ContentType: "application/zip",
        }),
      );
      const { sourceZip: _, ...rest } = job;
      return await run(rest);
    },
    async buildStored(job) {
      if (!(await sourceExists(store, job.buildId))) {
        throw new DeployError(
          "build_source_missing",
          `the source of build ${job.buildId} (${sourceKey(job.buildId)}) is no longer stored`,
          { hint: "pick another build from `deploy history`, or deploy the revision again" },
        );
      }
      return await run(job);
    },
  };
}

function lastLinesHint(lines: readonly string[]): string {
  if (lines.length === 0) return "the build wrote no log lines";
  return `last log lines:\n${lines.slice(-10).map((l) => `  ${l}`).join("\n")}`;
}
