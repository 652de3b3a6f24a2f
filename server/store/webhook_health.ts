/**
 * Each webhook endpoint's run of consecutive failed attempts, shared by every instance.
 *
 * @module
 */

/** An attempt's effect on an endpoint's run of consecutive failed attempts. */
export interface FailureRun {
  /** Consecutive failed attempts before this one was counted. */
  readonly before: number;
  /** After it: one more on a failure, 0 on a success. */
  readonly after: number;
}

/**
 * How each webhook endpoint's deliveries are going, shared by every instance on the store, so
 * all of them report an endpoint failing (metric, console, log) from the same count.
 */
export interface WebhookHealthStore {
  /**
   * Counts one attempt to `endpoint` atomically (no other instance's count is lost): a failure
   * adds one to the endpoint's run of consecutive failures, a success ends it.
   */
  record(endpoint: string, delivered: boolean): Promise<FailureRun>;
  /** Consecutive failed attempts of every endpoint with a run under way (absent: none). */
  read(): Promise<Map<string, number>>;
}
