/**
 * The MicroVM builder (`--builder microvm`, `rollback`): runs the build-and-publish job inside
 * a builder MicroVM in three steps, each a function of `(input, deps)` as `runJob` is:
 * {@linkcode stageJob} stores what the VM reads (the source zip, or finds a stored one; a copy
 * of the kept list; the rules target) and makes sure the image is current;
 * {@linkcode launchJob} records the build `running` and starts the VM with `toWire(job)` as its
 * run hook payload; {@linkcode followJob} follows the log stream to the agent's marker and
 * reports what the job changed (and kept) from the manifest the job stored. The VM is always
 * terminated afterwards.
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
import { type Clock, sleep, systemClock } from "@org/shared";
import { type AgentBundle, buildAgentBundle } from "./bundle.ts";
import { MAX_PAYLOAD_BYTES, parseMarker } from "./agent/markers.ts";
import type { Builder, JobHooks } from "../builder.ts";
import { finishRecord, runningRecord } from "../../build_records/record.ts";
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
import { buildDeadlineMs, type JobOutcome } from "../../job/job.ts";
import { type JobInput, type JobRetention, toWire } from "../../job/job_input.ts";
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

/** The builder's options with every default filled: what each step takes as `deps`. */
export interface MicrovmDeps
  extends Omit<MicrovmBuilderOptions, "clock" | "sleep" | "newToken" | "keepAlive" | "bundle"> {
  /** Time source. */
  readonly clock: Clock;
  /** Waits. */
  readonly sleep: (ms: number) => Promise<void>;
  /** A fresh unique token per launch. */
  readonly newToken: () => string;
  /** The keep-alive. */
  readonly keepAlive: KeepAlive;
  /** The agent bundle. */
  readonly bundle: () => Promise<AgentBundle>;
  /** The builder log group. */
  readonly logGroup: string;
}

/**
 * The builder's options with their defaults (pure apart from the keep-alive's client).
 *
 * @param o the options
 * @returns the steps' deps
 */
export function microvmDeps(o: MicrovmBuilderOptions): MicrovmDeps {
  const clock = o.clock ?? systemClock;
  return {
    ...o,
    clock,
    sleep: o.sleep ?? sleep,
    newToken: o.newToken ?? (() => crypto.randomUUID()),
    keepAlive: o.keepAlive ?? createKeepAlive(o.clients.microvms, clock),
    bundle: o.bundle ?? buildAgentBundle,
    logGroup: builderLogGroup(o.env, o.siteName),
  };
}

/** A job ready to launch: everything it reads is in the bucket, the image is current. */
export interface StagedJob {
  /** The job as the VM runs it: source in the bucket, staged parts, the record to finish. */
  readonly job: JobInput & { readonly record: NonNullable<JobInput["record"]> };
  /** The image to run. */
  readonly image: ReadyImage;
  /** The launch's idempotency token (names the log stream too). */
  readonly token: string;
}

/** A launched VM. */
export interface LaunchedJob extends StagedJob {
  /** The VM's id. */
  readonly microvmId: string;
  /** The VM's endpoint (for the keep-alive); `""` when the service gave none. */
  readonly endpoint: string;
  /** When it launched (epoch ms): the wait ends `maxDurationSeconds + 60` s later. */
  readonly launchedAt: number;
}

/**
 * The `RunMicrovm` input for one build.
 *
 * @param o builder options
 * @param image the image to run
 * @param job the job (its wire form becomes the run hook payload)
 * @param clientToken the launch's idempotency token
 * @returns the request
 * @throws DeployError `build_failed` when the payload is over 16 KB
 */
export function runRequest(
  o: Pick<MicrovmBuilderOptions, "microvm" | "image">,
  image: ReadyImage,
  job: JobInput & { readonly record: NonNullable<JobInput["record"]> },
  clientToken: string,
): RunMicrovmRequest {
  const payload = toWire(job);
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
    logging: { cloudWatch: { logGroup: job.record.logGroup, logStream: job.record.logStream } },
    runHookPayload: payload,
    maximumDurationInSeconds: o.microvm.maxDurationSeconds,
    clientToken,
  };
}

/**
 * Creates the MicroVM builder: `run(input)` is {@linkcode stageJob} → {@linkcode launchJob}
 * → {@linkcode followJob}, and the VM is terminated in every case. A plan is refused (a VM
 * cannot decide a sync without making it).
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
  const deps = microvmDeps(o);
  const run = async (input: JobInput, hooks: JobHooks = {}): Promise<JobOutcome> => {
    if (input.dryRun) throw planUnsupportedError();
    const launched = await launchJob(await stageJob(input, deps), deps);
    try {
      return await followJob(launched, { ...deps, hooks });
    } finally {
      await terminate(launched.microvmId, deps);
    }
  };
  // The service stops the VM at maxDurationSeconds; the wait ends a minute later (waitDeadline).
  return { name: "microvm", deadlineMs: buildDeadlineMs, run };
}

/**
 * Stages a job for the VM: stores the source (uploads `input.source.zip` to `build/<id>.zip`,
 * or checks that `input.source.bucketKey` is still stored), copies the kept list and the rules
 * target where the VM reads them, makes sure the builder image is current, and fills the
 * bucket's region and the record the job finishes.
 *
 * @param input the job
 * @param deps the builder's deps
 * @returns the staged job
 * @throws DeployError `build_source_missing`, `builder_image_failed`
 */
export async function stageJob(input: JobInput, deps: MicrovmDeps): Promise<StagedJob> {
  const store = { s3: deps.clients.s3, bucket: input.target.bucket };
  const source = await storeSource(input, deps);
  const retention = input.retention &&
    await stageKeptFiles(store, input.buildId, input.retention);
  const image = await ensureBuilderImage({
    microvms: deps.clients.microvms,
    store,
    name: builderImageName(deps.env, deps.siteName),
    memoryGb: deps.microvm.memory,
    logGroup: deps.logGroup,
    settings: deps.image,
    bundle: await deps.bundle(),
    tags: input.tags,
    clock: deps.clock,
    sleep: deps.sleep,
    ...(deps.onStatus ? { onStatus: deps.onStatus } : {}),
  });
  const routing = input.routing === undefined || "stagedKey" in input.routing
    ? input.routing
    : { stagedKey: await putRoutingTarget(store, input.buildId, input.routing) };
  const token = deps.newToken();
  // The owed invalidation stays the CLI's: the VM does not record it (as before the codec).
  const { owedKey: _, ...sent } = input;
  const job = {
    ...sent,
    source: { bucketKey: source },
    target: { ...input.target, region: deps.region },
    ...(retention ? { retention } : {}),
    ...(routing ? { routing } : {}),
    record: {
      startedAt: new Date(deps.clock.now()).toISOString(),
      source,
      logGroup: deps.logGroup,
      logStream: buildLogStream(input.buildId, token),
    },
  };
  return { job, image, token };
}

/**
 * Launches a staged job: records the build `running` and starts the VM (client token, idle
 * policy unchanged, maximum duration) with the job as its payload, retrying what the service
 * answers with 5xx; a launch that fails for good records the build `failed`.
 *
 * @param staged the staged job
 * @param deps the builder's deps
 * @returns the launched VM
 * @throws DeployError `microvm_launch_failed`, `build_failed` (payload over 16 KB)
 */
export async function launchJob(staged: StagedJob, deps: MicrovmDeps): Promise<LaunchedJob> {
  const { job, image, token } = staged;
  const store = { s3: deps.clients.s3, bucket: job.target.bucket };
  const request = runRequest(
    { microvm: { ...deps.microvm, maxDurationSeconds: job.maxDurationSeconds }, image: deps.image },
    image,
    job,
    token,
  );
  const record = runningRecord(job.buildId, job.record);
  await putBuildRecord(store, record);
  deps.onStatus?.("launching the builder MicroVM");
  try {
    const launched = await withRetry(
      () => deps.clients.microvms.send(new RunMicrovmCommand(request)),
      {
        ...LAUNCH_RETRY,
        clock: deps.clock,
        sleep: deps.sleep,
        onRetry: (attempt, delay) =>
          deps.onWarning?.(`RunMicrovm failed (attempt ${attempt}); retrying in ${delay} ms`),
      },
    );
    return {
      ...staged,
      microvmId: launched.microvmId ?? "",
      endpoint: launched.endpoint ?? "",
      launchedAt: deps.clock.now(),
    };
  } catch (err) {
    await putBuildRecord(
      store,
      finishRecord(record, deps.clock.now(), { status: "failed", reason: String(err) }),
    ).catch(() => {});
    throw new DeployError("microvm_launch_failed", `the builder MicroVM did not start: ${err}`, {
      hint: "check the MicroVMs service health and the builder role, then deploy again",
      cause: err,
    });
  }
}

/**
 * Follows a launched job to its end: streams the log lines to `hooks.onOutput` until the
 * agent's marker, keeps the VM awake, and returns what the job changed from
 * `builds/<id>.changed.json`. The wait ends at `maxDurationSeconds + 60` s after launch (the
 * record becomes `timeout`). It does not terminate the VM (the caller does, in every case).
 *
 * @param launched the launched job
 * @param deps the builder's deps and the caller's hooks
 * @returns the outcome
 * @throws DeployError `build_failed` (with the last log lines), `build_timeout`, `interrupted`
 */
export async function followJob(
  launched: LaunchedJob,
  deps: MicrovmDeps & { readonly hooks: JobHooks },
): Promise<JobOutcome> {
  const { job, microvmId, endpoint } = launched;
  const { clock, hooks } = deps;
  const store = { s3: deps.clients.s3, bucket: job.target.bucket };
  const deadline = waitDeadline(launched.launchedAt, job.maxDurationSeconds);
  const tail = createLogTail(deps.clients.logs, job.record.logGroup, job.record.logStream);
  const last: string[] = [];
  const pingEvery = keepAliveIntervalMs(deps.microvm.idle.maxIdleDurationSeconds);
  let lastPing = -Infinity;
  let stopped: string | undefined;
  for (;;) {
    // Ctrl-C: stop waiting; the VM is terminated on the way out like after any failure.
    if (hooks.signal?.aborted) throw interruptedError("the MicroVM build");
    for (const line of await tail.poll()) {
      hooks.onOutput?.(line.message, "stdout");
      last.push(line.message);
      if (last.length > TAIL_LINES) last.shift();
      const marker = parseMarker(line.message, job.buildId);
      if (marker?.kind === "done") return await storedOutcome(store, job.buildId, last);
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
    stopped = await stoppedReason(microvmId, deps);
    if (stopped !== undefined) continue; // read the log once more before giving up
    if (clock.now() - lastPing >= pingEvery && endpoint !== "") {
      lastPing = clock.now();
      await deps.keepAlive({ microvmId, endpoint }).catch((err) =>
        deps.onWarning?.(`keep-alive for ${microvmId} failed: ${err}`)
      );
    }
    await deps.sleep(nextPollDelay(clock.now(), deadline, deps.pollIntervalMs ?? 2000));
  }
  await putBuildRecord(
    store,
    finishRecord(runningRecord(job.buildId, job.record), clock.now(), {
      status: "timeout",
      reason: `no result within ${job.maxDurationSeconds + 60} s of launch`,
    }),
  ).catch(() => {});
  throw new DeployError(
    "build_timeout",
    `the build did not finish within ${job.maxDurationSeconds + 60} s of launch`,
    { hint: `raise microvm.maxDurationSeconds or speed up the build\n${lastLinesHint(last)}` },
  );
}

/** Puts the source where the VM reads it: `build/<id>.zip` in the target bucket. */
async function storeSource(input: JobInput, deps: MicrovmDeps): Promise<string> {
  const store = { s3: deps.clients.s3, bucket: input.target.bucket };
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
  deps.onStatus?.(`uploading the source (${body.byteLength} bytes)`);
  return await putSourceZip(store, input.buildId, body);
}

async function terminate(microvmId: string, deps: MicrovmDeps): Promise<void> {
  try {
    await deps.clients.microvms.send(new TerminateMicrovmCommand({ microvmIdentifier: microvmId }));
  } catch (err) {
    deps.onWarning?.(`the builder MicroVM ${microvmId} could not be terminated: ${err}`);
  }
}

async function stoppedReason(microvmId: string, deps: MicrovmDeps): Promise<string | undefined> {
  try {
    const vm = await deps.clients.microvms.send(
      new GetMicrovmCommand({ microvmIdentifier: microvmId }),
    );
    if (vm.state === "TERMINATED" || vm.state === "TERMINATING") {
      return vm.stateReason ?? vm.state;
    }
    return undefined;
  } catch (err) {
    // A failed status read is no reason to abandon a build that may still finish.
    deps.onWarning?.(`GetMicrovm ${microvmId} failed: ${err}`);
    return undefined;
  }
}

/** What the job changed, from the manifest it stored before logging its done marker. */
async function storedOutcome(
  store: { s3: S3Client; bucket: string },
  id: string,
  last: readonly string[],
): Promise<JobOutcome> {
  const manifest = await getManifest(store, id);
  if (!manifest) {
    throw new DeployError("build_failed", `the build reported done but stored no manifest`, {
      hint: lastLinesHint(last),
    });
  }
  const { version: _, id: __, ...counts } = manifest;
  // The job's warnings were logged in the VM's output, which the caller has seen.
  return { ...counts, warnings: [] };
}

/**
 * The job's retention as the VM takes it: the kept list copied where the VM reads it
 * (`build/<id>.kept.json`: the builder role reads `build/*`, not `state/*`, and the list may
 * outgrow the run payload), or inline when nothing is kept.
 */
async function stageKeptFiles(
  store: { s3: S3Client; bucket: string },
  buildId: string,
  retention: JobRetention,
): Promise<JobRetention> {
  if ("stagedKey" in retention.kept || retention.kept.length === 0) return retention;
  const stagedKey = keptFilesCopyKey(buildId);
  await writeKeptFiles({ ...store, key: stagedKey }, [], retention.kept);
  return { ...retention, kept: { stagedKey } };
}

function lastLinesHint(lines: readonly string[]): string {
  if (lines.length === 0) return "the build wrote no log lines";
  return `last log lines:\n${lines.slice(-10).map((l) => `  ${l}`).join("\n")}`;
}
