/**
 * The local builder (`--builder local`, and `plan`): runs the build-and-publish job in this
 * process, on this machine.
 *
 * @module
 */
import type { S3Client } from "@aws-sdk/client-s3";
import type { Clock, Logger } from "@org/shared";
import type { RetryOptions } from "../aws/retry.ts";
import { runJob } from "../job/job.ts";
import type { Builder } from "./builder.ts";

/** Options for {@linkcode createLocalBuilder}. */
export interface LocalBuilderOptions {
  /** S3 client for the target bucket. */
  readonly s3: S3Client;
  /** Warnings and structured logs. */
  readonly logger: Logger;
  /** Parent of the temp build dir. Default: the system temp dir. */
  readonly tempRoot?: string;
  /** Overrides the deadline (milliseconds); tests use it instead of waiting a minute. */
  readonly deadlineMs?: number;
  /** Extra environment for the install and build (merged over this process's). */
  readonly env?: Readonly<Record<string, string>>;
  /** Backoff for S3 calls. */
  readonly retry?: RetryOptions;
  /** Parallel uploads. Default 16. */
  readonly concurrency?: number;
  /** Time source for records. Default: the system clock. */
  readonly clock?: Clock;
}

/**
 * Creates the local builder: `run()` calls {@linkcode runJob} here, with the caller's hooks.
 *
 * @param options S3, logger, temp root, deadline override and extra env
 * @returns the builder
 *
 * @example
 * ```ts
 * import type { JobInput } from "../job/job.ts";
 * import type { LocalBuilderOptions } from "./local.ts";
 *
 * const build = (options: LocalBuilderOptions, input: JobInput) =>
 *   createLocalBuilder(options).run(input);
 * ```
 */
export function createLocalBuilder(options: LocalBuilderOptions): Builder {
  return {
    name: "local",
    run: (input, hooks = {}) => runJob(input, { ...options, ...hooks }),
  };
}
