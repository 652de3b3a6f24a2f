/**
 * The MicroVM builder (`--builder microvm`, `rollback`): runs the build-and-publish job inside
 * a builder MicroVM. It uploads the source zip (or finds a stored one) and a copy of the kept
 * list (`retention.previousDays`), launches the VM with the job as its run hook payload,
 * follows the log stream to the agent's marker, and reports what the job changed (and kept)
 * from the manifest the job stored. The VM is always terminated afterwards.
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
import type { S3Client } from "@aws-sdk/client-s3";
import { type Clock, systemClock } from "@org/shared";
import { type AgentBundle, buildAgentBundle } from "./bundle.ts";
import {
  type AgentJob,
  type AgentRetention,
  MAX_PAYLOAD_BYTES,
  parseMarker,
} from "./agent/job_description.ts";
import type { Builder, JobHooks } from "../builder.ts";
import { type BuildRecord, finishRecord, runningRecord } from "../../build_records/record.ts";
import {
  getManifest,
  putBuildRecord,
  putRoutingTarget,
  putSourceZip,
} from "../../build_records/store.ts";
import { objectExists } from "../../aws/s3_objects.ts";
import type { MicrovmIdle } from "../../config/site_config.ts";
import { builderImageName, builderLogGroup, buildLogStream } from "../../config/names.ts";
import { DeployError, interruptedError, planUnsupportedError } from "../../errors.ts";
import {
  buildDeadlineMs,
  type JobInput,
  type JobOutcome,
  type JobRetention,
} from "../../job/job.ts";
import { keptFilesCopyKey } from "../../state/bucket_layout.ts";
import { writeKeptFiles } from "../../state/kept_files.ts";
import { nextPollDelay, pastDeadline, waitDeadline } from "./deadline.ts";
import { type BuilderImageSettings, ensureBuilderImage, type ReadyImage } from "./image.ts";
import { createKeepAlive, type KeepAlive, keepAliveIntervalMs } from "./keep_alive.ts";
import { LAUNCH_RETRY } from "./launch_retry.ts";
import { withRetry } from "../../aws/retry.ts";
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
  /** Config `microvm`: memory (image), idle policy (passed unchanged), max duration. */
  readonly microvm: {
    readonly memory: number;
    readonly maxDurationSeconds: number;
    readonly idle: MicrovmIdle;
  };
  /** Base image and roles (from the environment state). */
  readonly image: BuilderImageSettings;
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
 * Creates the MicroVM builder.
 *
 * `run(input)` stores the source (uploads `input.source.zip` to `build/<id>.zip`, or checks
 * that `input.source.bucketKey` is still stored), makes sure the builder image is current,
 * writes a `running` record, launches the VM (client token, idle policy unchanged, maximum
 * duration) with the job as its payload, streams the log lines to `hooks.onOutput` until the
 * agent's marker, and returns what the job changed from `builds/<id>.changed.json`. The wait
 * ends at `maxDurationSeconds + 60` s after launch. The VM is terminated in every case.
 *
 * @param o clients, site settings, image settings and test seams
 * @returns the builder
 * @throws DeployError `build_failed` (with the last log lines), `build_timeout`,
 *   `build_source_missing`, `builder_image_failed`, `microvm_launch_failed`, `plan_unsupported`
 *
 * @example
 * ```ts
 * import type { JobInput } from "../../job/job.ts";
 * import type { MicrovmBuilderOptions } from "./builder.ts";
 *
 * async function buildOnce(options: MicrovmBuilderOptions, jobInput: JobInput) {
 *   const builder = createMicrovmBuilder(options);
 *   return await builder.run(jobInput, { onOutput: (line) => console.log(line) });
 * }
 * ```
 */
export function createMicrovmBuilder(o: MicrovmBuilderOptions): Builder {
  const clock = o.clock ?? systemClock;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const newToken = o.newToken ?? (() => crypto.randomUUID());
  const keepAlive = o.keepAlive ?? createKeepAlive(o.clients.microvms, clock);
  const logGroup = builderLogGroup(o.env, o.siteName);

  /** Puts the source where the VM reads it: `build/<id>.zip` in the target bucket. */
  const storeSource = async (input: JobInput): Promise<string> => {
    const store = { s3: o.clients.s3, bucket: input.target.bucket };
    if ("bucketKey" in input.source) {
      if (!(await objectExists(store, input.source.bucketKey))) {
        throw new DeployError(
          "build_source_missing",
          `the source of build ${input.buildId} (${input.source.bucketKey}) is no longer stored`,
          { hint: "pick another build from `deploy history`, or deploy the revision again" },
        );
      }
      return input.source.bucketKey;
    }
    if (!("zip" in input.source)) {
      throw new Error("the MicroVM builder builds a source zip, not an existing directory");
    }
    const body = await Deno.readFile(input.source.zip);
    o.onStatus?.(`uploading the source (${body.byteLength} bytes)`);
    return await putSourceZip(store, input.buildId, body);
  };

  const run = async (input: JobInput, hooks: JobHooks = {}): Promise<JobOutcome> => {
    if (input.dryRun) {
      throw planUnsupportedError();
    }
    const source = await storeSource(input);
    const store = { s3: o.clients.s3, bucket: input.target.bucket };
    const retention = input.retention &&
      await stageKeptFiles(store, input.buildId, input.retention);
    const bundle = await (o.bundle ?? buildAgentBundle)();
    const image = await ensureBuilderImage({
      microvms: o.clients.microvms,
      store,
      name: builderImageName(o.env, o.siteName),
      memoryGb: o.microvm.memory,
      logGroup,
      settings: o.image,
      bundle,
      tags: input.tags,
      clock,
      sleep,
      ...(o.onStatus ? { onStatus: o.onStatus } : {}),
    });
    const routingKey = input.routing
      ? await putRoutingTarget(store, input.buildId, input.routing)
      : undefined;
    const token = newToken();
    const logStream = buildLogStream(input.buildId, token);
    const startedAt = clock.now();
    const agentJob: AgentJob = {
      version: 1,
      buildId: input.buildId,
      bucket: input.target.bucket,
      region: o.region,
      sourceKey: source,
      prefix: input.target.prefix,
      paths: input.paths,
      seo: input.seo,
      isProduction: input.production,
      origin: input.origin ?? null,
      tags: input.tags,
      ...(input.refresh ? { refresh: true } : {}),
      ...(input.force ? { force: true } : {}),
      ...(retention ? { retention } : {}),
      ...(input.keepOutputDays === undefined ? {} : { keepOutputDays: input.keepOutputDays }),
      maxDurationSeconds: input.maxDurationSeconds,
      startedAt: new Date(startedAt).toISOString(),
      logGroup,
      logStream,
      ...(routingKey ? { routingKey } : {}),
    };
    const request = runRequest(
      { microvm: { ...o.microvm, maxDurationSeconds: input.maxDurationSeconds }, image: o.image },
      image,
      agentJob,
      token,
    );
    const record = runningRecord(input.buildId, {
      startedAt: agentJob.startedAt,
      source: agentJob.sourceKey,
      logGroup,
      logStream,
    });
    await putBuildRecord(store, record);
    o.onStatus?.("launching the builder MicroVM");
    let launched;
    try {
      launched = await withRetry(
        () => o.clients.microvms.send(new RunMicrovmCommand(request)),
        {
          ...LAUNCH_RETRY,
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
      const follow = { input, hooks, record, store, microvmId, endpoint: launched.endpoint ?? "" };
      return await followBuild(follow, clock.now());
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

  const followBuild = async (
    f: {
      input: JobInput;
      hooks: JobHooks;
      record: BuildRecord;
      store: { s3: S3Client; bucket: string };
      microvmId: string;
      endpoint: string;
    },
    launchedAt: number,
  ): Promise<JobOutcome> => {
    const { input, record, microvmId, endpoint } = f;
    const deadline = waitDeadline(launchedAt, input.maxDurationSeconds);
    const tail = createLogTail(o.clients.logs, record.logGroup, record.logStream);
    const last: string[] = [];
    const pingEvery = keepAliveIntervalMs(o.microvm.idle.maxIdleDurationSeconds);
    let lastPing = -Infinity;
    let stopped: string | undefined;
    for (;;) {
      // Ctrl-C: stop waiting; the VM is terminated on the way out like after any failure.
      if (f.hooks.signal?.aborted) throw interruptedError("the MicroVM build");
      for (const line of await tail.poll()) {
        f.hooks.onOutput?.(line.message, "stdout");
        last.push(line.message);
        if (last.length > TAIL_LINES) last.shift();
        const marker = parseMarker(line.message, input.buildId);
        if (marker?.kind === "done") return await outcome(f.store, input.buildId, last);
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
      f.store,
      finishRecord(record, clock.now(), {
        status: "timeout",
        reason: `no result within ${input.maxDurationSeconds + 60} s of launch`,
      }),
    ).catch(() => {});
    throw new DeployError(
      "build_timeout",
      `the build did not finish within ${input.maxDurationSeconds + 60} s of launch`,
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

  /** What the job changed, from the manifest it stored before logging its done marker. */
  const outcome = async (
    store: { s3: S3Client; bucket: string },
    id: string,
    last: readonly string[],
  ): Promise<JobOutcome> => {
    const manifest = await getManifest(store, id);
    if (!manifest) {
      throw new DeployError("build_failed", `the build reported done but stored no manifest`, {
        hint: lastLinesHint(last),
      });
    }
    const { version: _, id: __, ...counts } = manifest;
    // The job's warnings were logged in the VM's output, which the caller has seen.
    return { ...counts, warnings: [] };
  };

  // The service stops the VM at maxDurationSeconds; the wait ends a minute later (waitDeadline).
  return { name: "microvm", deadlineMs: buildDeadlineMs, run };
}

/**
 * The job's retention as the agent takes it: the kept list copied where the VM reads it
 * (`build/<id>.kept.json`: the builder role reads `build/*`, not `state/*`, and the list may
 * outgrow the run payload), or no key at all when nothing is kept.
 */
async function stageKeptFiles(
  store: { s3: S3Client; bucket: string },
  buildId: string,
  { previousDays, now, kept }: JobRetention,
): Promise<AgentRetention> {
  if (kept.length === 0) return { previousDays, now };
  const keptKey = keptFilesCopyKey(buildId);
  await writeKeptFiles({ ...store, key: keptKey }, [], kept);
  return { previousDays, now, keptKey };
}

function lastLinesHint(lines: readonly string[]): string {
  if (lines.length === 0) return "the build wrote no log lines";
  return `last log lines:\n${lines.slice(-10).map((l) => `  ${l}`).join("\n")}`;
}
