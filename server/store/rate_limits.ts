/**
 * Public rate-limit counts shared by every instance on the store.
 *
 * @module
 */

/**
 * Public rate-limit counts per client key and fixed window, summed over every instance on the
 * store. Instances count in memory and add their counts about once a second (`limits/
 * rate_limiter.ts`), so the hot path makes no round trip for it.
 */
export interface RateLimitStore {
  /**
   * Adds `counts` (client key → requests counted since this instance's last call) to the
   * shared counts of `window` atomically, and returns the shared totals of those keys, this
   * addition included. The counts may be forgotten after `forgetAt` (ms).
   */
  add(
    window: number,
    counts: ReadonlyMap<string, number>,
    forgetAt: number,
  ): Promise<Map<string, number>>;
}
