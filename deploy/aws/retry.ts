/**
 * The one retry loop of the CLI: exponential backoff with jitter, a predicate deciding what is
 * worth retrying, and bounds in attempts and in time. Every AWS call that may fail transiently
 * (S3 and CloudFront throttling, a MicroVM launch behind a gateway error, CloudWatch Logs or IAM
 * still settling) goes through {@linkcode withRetry} with its own policy.
 *
 * @module
 */
import { type Clock, sleep as realSleep } from "@org/shared";

/** How {@linkcode withRetry} retries. */
export interface RetryOptions {
  /** Which failures are worth another attempt. Default {@linkcode isRetryable} (transient AWS). */
  readonly isRetryable?: (err: unknown) => boolean;
  /** Total attempts including the first. Default 6. */
  readonly attempts?: number;
  /** First backoff in milliseconds; doubles on each retry. Default 100. */
  readonly baseDelayMs?: number;
  /** Backoff ceiling in milliseconds. Default 5000. */
  readonly maxDelayMs?: number;
  /**
   * Time allowed from the first attempt: a retry whose wait would end past it is not made and
   * the last error is thrown. Default: no limit (attempts bound the loop).
   */
  readonly deadlineMs?: number;
  /** Time source for `deadlineMs`. Default: the system clock. */
  readonly clock?: Clock;
  /** Waits `ms`; injected so tests do not sleep. Default: a real timer. */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * A number in [0, 1) that shortens each wait by up to half (jitter, so clients that failed
   * together do not retry together). Default `Math.random`; `() => 0` waits the full backoff.
   */
  readonly random?: () => number;
  /**
   * Stops retrying once aborted: the last error is thrown instead of waiting again (a wait
   * under way ends at once). Callers also hand it to the SDK ({@linkcode abortable}), so a
   * request in flight is aborted too.
   */
  readonly signal?: AbortSignal;
  /** Called before each wait with the attempt that failed (1-based), the wait and the error. */
  readonly onRetry?: (attempt: number, delayMs: number, err: unknown) => void;
}

const RETRYABLE_NAMES = new Set([
  "SlowDown",
  "ServiceUnavailable",
  "InternalError",
  "RequestTimeout",
  "RequestTimeoutException",
  "Throttling",
  "ThrottlingException",
  "TooManyRequestsException",
  "TimeoutError",
  "ECONNRESET",
  "EPIPE",
]);

/**
 * Whether an error is worth retrying: S3's 503 `SlowDown`, any 5xx but 501, a 429, throttling,
 * or a dropped connection. A 4xx means the request itself is wrong, and 501 Not Implemented
 * that the API is missing (an S3-compatible store), so neither is retried.
 *
 * @param err anything thrown by an AWS SDK call
 * @returns true when a retry may succeed
 */
export function isRetryable(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { name?: unknown; code?: unknown; $metadata?: { httpStatusCode?: unknown } };
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === "number") return (status >= 500 && status !== 501) || status === 429;
  return (typeof e.name === "string" && RETRYABLE_NAMES.has(e.name)) ||
    (typeof e.code === "string" && RETRYABLE_NAMES.has(e.code));
}

/**
 * The full wait before retry number `retry` (0-based): `baseDelayMs * 2^retry`, capped; the
 * jitter of {@linkcode withRetry} only shortens it.
 *
 * @param retry how many retries came before this one
 * @param options base and ceiling
 * @returns milliseconds
 */
export function backoffMs(retry: number, options: RetryOptions = {}): number {
  const base = options.baseDelayMs ?? 100;
  return Math.min(options.maxDelayMs ?? 5000, base * 2 ** retry);
}

/**
 * Runs `fn`, retrying the failures `options.isRetryable` accepts with jittered exponential
 * backoff; the last error is rethrown once attempts or time run out, when aborted, or for a
 * failure not worth retrying.
 *
 * @param fn the call to make (idempotent, or made so: a client token, a conditional write)
 * @param options the policy: predicate, attempts, delays, deadline, sleep, abort signal
 * @returns what `fn` returns
 * @throws the error of the last attempt
 *
 * @example
 * ```ts
 * import { withRetry } from "./retry.ts";
 *
 * let calls = 0;
 * const slowDown = Object.assign(new Error("SlowDown"), { $metadata: { httpStatusCode: 503 } });
 * const out = await withRetry(
 *   () => ++calls < 3 ? Promise.reject(slowDown) : Promise.resolve("stored"),
 *   { sleep: () => Promise.resolve() },
 * );
 * if (out !== "stored" || calls !== 3) throw new Error("expected two retries");
 * ```
 */
export async function withRetry<T>(fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 6);
  const retryable = options.isRetryable ?? isRetryable;
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  const now = () => options.clock?.now() ?? Date.now();
  const start = now();
  for (let attempt = 1;; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= attempts || options.signal?.aborted || !retryable(err)) throw err;
      const full = backoffMs(attempt - 1, options);
      const delay = Math.round(full - random() * full / 2);
      if (options.deadlineMs !== undefined && now() - start + delay > options.deadlineMs) {
        throw err;
      }
      options.onRetry?.(attempt, delay, err);
      await (options.signal ? untilAborted(sleep(delay), options.signal) : sleep(delay));
      if (options.signal?.aborted) throw err;
    }
  }
}

/**
 * The SDK `send` options that abort a request in flight with `retry.signal` (Ctrl-C): the
 * retry loop alone could only stop before the next attempt, while a slow S3 holds the current
 * one for as long as it likes.
 *
 * @param retry the retry options, whose `signal` is used
 * @returns `{ abortSignal }`, or nothing without a signal
 *
 * @example
 * ```ts
 * import { abortable } from "./retry.ts";
 *
 * const controller = new AbortController();
 * abortable({ signal: controller.signal }); // { abortSignal: controller.signal }
 * ```
 */
export function abortable(retry?: RetryOptions): { abortSignal?: AbortSignal } {
  return retry?.signal ? { abortSignal: retry.signal } : {};
}

/** `wait`, or less: it resolves as soon as `signal` aborts. */
function untilAborted(wait: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done);
    wait.then(done, done);
  });
}
