/**
 * The retry policy of a MicroVM launch: gateway errors (502, 503, 504) for up to two minutes.
 * Safe because every attempt carries the same client token, so the service starts one VM at most.
 *
 * @module
 */
import { awsHttpStatus } from "../../aws/errors.ts";
import type { RetryOptions } from "../../aws/retry.ts";

/** The HTTP statuses worth retrying a launch on. */
export const LAUNCH_RETRY_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * Whether an SDK error is a gateway error (502/503/504).
 *
 * @param err anything thrown
 * @returns true to retry
 */
export function isGatewayError(err: unknown): boolean {
  const status = awsHttpStatus(err);
  return status !== undefined && LAUNCH_RETRY_STATUSES.has(status);
}

/**
 * `RunMicrovm`'s policy for `withRetry`: gateway errors only, from 1 s doubling up to
 * 10 s, until two minutes after the first attempt (time bounds it, not a count).
 */
export const LAUNCH_RETRY: RetryOptions = {
  isRetryable: isGatewayError,
  attempts: Infinity,
  baseDelayMs: 1000,
  maxDelayMs: 10_000,
  deadlineMs: 120_000,
};
