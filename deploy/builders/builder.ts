/**
 * Where the build-and-publish job runs (`--builder local|microvm`). The job itself
 * (`job/job.ts`) is the same everywhere; a builder only decides where {@linkcode runJob} is
 * called: in this process (the local builder) or inside a MicroVM (the MicroVM builder, whose
 * agent calls it there).
 *
 * @module
 */
import type { JobDeps, JobInput, JobOutcome } from "../job/job.ts";

export type { BuildPaths } from "../job/job.ts";

/**
 * What the caller follows while a job runs: steps, the build's output, upload progress; and
 * the interrupt signal (Ctrl-C) that stops it.
 */
export type JobHooks = Pick<JobDeps, "onStage" | "onOutput" | "onSyncProgress" | "signal">;

/** Something that runs the build-and-publish job. */
export interface Builder {
  /** `local` or `microvm`. */
  readonly name: "local" | "microvm";
  /**
   * How long this builder lets one job's build run before stopping it (milliseconds): the
   * deploy lock lasts this long plus the publish, so a lock whose holder died lapses with it.
   *
   * @param maxDurationSeconds config `microvm.maxDurationSeconds`
   */
  deadlineMs(maxDurationSeconds: number): number;
  /**
   * Runs one job where this builder runs jobs.
   *
   * @throws DeployError as `runJob` does, and the builder's own (`microvm_launch_failed`, …)
   */
  run(input: JobInput, hooks?: JobHooks): Promise<JobOutcome>;
}
