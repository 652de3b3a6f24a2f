/**
 * Retries a MicroVM launch on gateway errors (502, 503, 504) for up to two minutes. Safe
 * because every attempt carries the same client token, so the service starts one VM at most.
 *
 * @module
 */
import type { Clock } from "@org/shared";
import { awsHttpStatus } from "../../aws/errors.ts";

/** How {@linkcode retryLaunch} waits. */
export interface LaunchRetryOptions {
  /** Time source. */
  readonly clock: Clock;
  /** Waits `ms` (injected so tests do not sleep). */
  readonly sleep: (ms: number) => Promise<void>;
  /** Total time allowed for retries. Default 120 000 ms. */
  readonly limitMs?: number;
  /** First backoff. Default 1000 ms; doubles up to 10 s. */
  readonly baseDelayMs?: number;
  /** Called before each retry with the attempt number and the delay. */
  readonly onRetry?: (attempt: number, delayMs: number, err: unknown) => void;
}

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
 * Runs `fn`, retrying gateway errors with doubling backoff until `limitMs` after the first
 * attempt; any other error, or a gateway error past the limit, is thrown.
 *
 * @param fn the launch (must be idempotent: same client token every time)
 * @param options clock, sleep, limit
 * @returns what `fn` returned
 */
export async function retryLaunch<T>(
  fn: () => Promise<T>,
  options: LaunchRetryOptions,
): Promise<T> {
  const start = options.clock.now();
  const limit = options.limitMs ?? 120_000;
  let delay = options.baseDelayMs ?? 1000;
  for (let attempt = 1;; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isGatewayError(err)) throw err;
      const elapsed = options.clock.now() - start;
      if (elapsed + delay > limit) throw err;
      options.onRetry?.(attempt, delay, err);
      await options.sleep(delay);
      delay = Math.min(delay * 2, 10_000);
    }
  }
}
