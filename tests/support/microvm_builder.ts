/**
 * The MicroVM builder's test set-up, written once: the seams that keep a build off the real
 * clock and out of the real bundle (`builderSeams`), and the run hooks the MicroVMs fake calls
 * at `RunMicrovm`, which play the VM: the real agent on the job the CLI sent (`agentRun`), or
 * a stand-in that stores a manifest and logs the done marker (`reportingRun`).
 */
import { type FixedClock, sleep } from "@org/shared";
import type { AgentBundle } from "../../deploy/builders/microvm/bundle.ts";
import type { MicrovmSeams } from "../../deploy/builders/create_builder.ts";
import { doneMarker } from "../../deploy/builders/microvm/agent/markers.ts";
import { type AgentDeps, runAgentJob } from "../../deploy/builders/microvm/agent/run_agent_job.ts";
import { putManifest } from "../../deploy/build_records/store.ts";
import { fromWire, type JobInput } from "../../deploy/job/job_input.ts";
import type { S3Client } from "@aws-sdk/client-s3";
import type { MicrovmRunContext } from "../fakes/microvms.ts";

/**
 * A stand-in agent bundle: the image hash is all the builder reads of it.
 *
 * @param hashChar the character the 64-character hash repeats
 * @returns the bundle seam
 */
export function fakeBundle(hashChar = "c"): () => Promise<AgentBundle> {
  return () =>
    Promise.resolve({
      files: new Map(),
      hash: hashChar.repeat(64),
      zip: new Uint8Array([80, 75, 5, 6]),
      entry: "x.ts",
    });
}

/**
 * Builder seams on a fixed clock: each wait advances the clock (and yields for a millisecond),
 * the keep-alive does nothing and the bundle is {@linkcode fakeBundle}.
 *
 * @param clock the test's clock
 * @param overrides seams to replace (a recording keep-alive, a poll interval)
 * @returns the seams for `createMicrovmBuilder` or a command
 */
export function builderSeams(
  clock: FixedClock,
  overrides: MicrovmSeams = {},
): MicrovmSeams & Required<Pick<MicrovmSeams, "clock" | "sleep" | "keepAlive" | "bundle">> {
  return {
    clock,
    sleep: (ms) => {
      clock.advance(ms);
      return sleep(1);
    },
    keepAlive: () => Promise.resolve(),
    bundle: fakeBundle(),
    ...overrides,
  };
}

/** Appends lines to a log stream (the Logs fake's `state.append`). */
export type AppendLog = (group: string, stream: string, lines: string[]) => void;

/**
 * A run hook that plays the VM with the real agent: the job the CLI sent, read as the agent
 * reads it (`fromWire`), run by `runAgentJob`, its lines logged to the stream the launch named.
 *
 * @param append writes to the Logs fake
 * @param deps the agent's clients for a job (its S3 client, CloudFront)
 * @returns the `onRun` hook
 */
export function agentRun(
  append: AppendLog,
  deps: (job: JobInput) => Omit<AgentDeps, "log"> | Promise<Omit<AgentDeps, "log">>,
): (ctx: MicrovmRunContext) => Promise<void> {
  return async (ctx) => {
    const job = fromWire(ctx.payload ?? "");
    const { logGroup, logStream } = ctx.logging ?? {};
    if (!logGroup || !logStream) throw new Error("RunMicrovm named no log stream");
    await runAgentJob(job, {
      ...await deps(job),
      log: (line) => append(logGroup, logStream, [line]),
    });
  };
}

/**
 * A run hook that stands in for the agent: it stores the changed-keys manifest a build of
 * `changedKeys` would and logs the done marker, without building anything.
 *
 * @param append writes to the Logs fake
 * @param s3 a client for the job's bucket, or a maker of one (destroyed after each run)
 * @param changedKeys what the build "changed"
 * @returns the `onRun` hook
 */
export function reportingRun(
  append: AppendLog,
  s3: S3Client | (() => S3Client),
  changedKeys: readonly string[],
): (ctx: MicrovmRunContext) => Promise<void> {
  return async (ctx) => {
    const job = fromWire(ctx.payload ?? "");
    const client = typeof s3 === "function" ? s3() : s3;
    try {
      await putManifest({ s3: client, bucket: job.target.bucket }, {
        version: 1,
        id: job.buildId,
        changedKeys,
        uploaded: changedKeys.length,
        deleted: 0,
        unchanged: 7,
        bytesUploaded: 10,
      });
    } finally {
      if (typeof s3 === "function") client.destroy();
    }
    append(ctx.logging!.logGroup!, ctx.logging!.logStream!, ["building", doneMarker(job.buildId)]);
  };
}
