/**
 * When a webhook delivery that failed is tried again: exponential backoff with jitter, for up
 * to a day after the event. Pure, so the schedule is tested without a clock.
 *
 * @module
 */

/** Longest an event is retried after it was committed (ms): 24 hours. */
export const DELIVERY_WINDOW_MS = 24 * 3_600_000;
/** Wait before the second attempt, doubling after each failure (ms). */
export const FIRST_RETRY_MS = 5_000;
/** Longest wait between two attempts (ms): one hour. */
export const MAX_RETRY_MS = 3_600_000;
/** Consecutive failed attempts after which an endpoint is reported failing. */
export const FAILING_AFTER = 5;

/**
 * When to try again after `attempts` failed attempts, or `undefined` once the next attempt would
 * fall past {@linkcode DELIVERY_WINDOW_MS} after the event (the event is given up).
 *
 * The wait doubles from {@linkcode FIRST_RETRY_MS} up to {@linkcode MAX_RETRY_MS}, then is cut
 * by up to half at random (`jitter` in [0, 1)), so endpoints that failed together do not all
 * retry in the same instant.
 *
 * @example
 * ```ts
 * nextAttemptAt({ created_at: 0, attempts: 1 }, 0, 0); // 5000
 * nextAttemptAt({ created_at: 0, attempts: 3 }, 1000, 0.5); // 1000 + 15000
 * ```
 */
export function nextAttemptAt(
  message: { readonly created_at: number; readonly attempts: number },
  now: number,
  jitter: number,
): number | undefined {
  const backoff = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, message.attempts - 1));
  const at = now + Math.round(backoff * (1 - jitter / 2));
  return at > message.created_at + DELIVERY_WINDOW_MS ? undefined : at;
}
