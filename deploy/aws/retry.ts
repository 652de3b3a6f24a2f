/**
 * Retry with exponential backoff for S3 and CloudFront calls that fail transiently.
 *
 * @module
 */

/** How {@linkcode withRetry} retries. */
export interface RetryOptions {
  /** Total attempts including the first. Default 6. */
  readonly attempts?: number;
  /** First backoff in milliseconds; doubles on each retry. Default 100. */
  readonly baseDelayMs?: number;
  /** Backoff ceiling in milliseconds. Default 5000. */
  readonly maxDelayMs?: number;
  /** Waits `ms`; injected so tests do not sleep. Default: a real timer. */
  readonly sleep?: (ms: number) => Promise<void>;
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
 * The wait before retry number `retry` (0-based): `baseDelayMs * 2^retry`, capped.
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
 * Runs `fn`, retrying retryable failures (see {@linkcode isRetryable}) with exponential
 * backoff; the last error is rethrown once attempts run out or for a non-retryable one.
 *
 * @param fn the call to make
 * @param options attempts, delays and the sleep function
 * @returns what `fn` returns
 * @throws the error of the last attempt
 *
 * @example
 * ```ts
 * await withRetry(() => s3.send(new PutObjectCommand(input)));
 * ```
 */
export async function withRetry<T>(fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 6);
  const sleep = options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  for (let attempt = 0;; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt + 1 >= attempts || !isRetryable(err)) throw err;
      await sleep(backoffMs(attempt, options));
    }
  }
}

/**
 * Runs `fn` over `items` with at most `limit` calls in flight; rejects with the first failure
 * after the calls already started have settled.
 *
 * @param items the work
 * @param limit the parallelism bound (at least 1)
 * @param fn the call per item
 */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const i = next++;
      try {
        await fn(items[i]!, i);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure !== undefined) throw failure.err;
}
