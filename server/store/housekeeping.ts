/**
 * The sweep that deletes what has ended, for every concern of the store.
 *
 * @module
 */

/** Default most records of each kind one {@linkcode Housekeeping.sweepExpired} deletes. */
export const SWEEP_LIMIT = 1000;

/** The store's housekeeping: deleting what has ended, for every concern of the store. */
export interface Housekeeping {
  /**
   * The cleanup sweep: deletes session families whose absolute end is at or before `now`
   * (revoked or not) with their user-index entries, lowers the live-session counter for those
   * not already revoked, deletes refresh records past their own end, and whatever else of the
   * store has ended and does not expire by itself (nonces, used-ID-token markers, rate-limit
   * windows, lockout records, audit records and settled webhook deliveries past their
   * `expires_at`). Bounded: at most `limit` records of each kind per call (default
   * {@linkcode SWEEP_LIMIT}); call again for more.
   *
   * @returns how many session families were deleted
   */
  sweepExpired(now: number, limit?: number): Promise<number>;
}
