/**
 * Per-peer operator authentication attempts, shared by every instance on the store.
 *
 * @module
 */
import type { OutboxFor } from "./side_records.ts";

/** Operator authentication attempts of one peer address (see `auth/lockout.ts`). */
export interface LockoutState {
  /**
   * Attempts taken in the current window and not given back: failed ones and those still
   * being evaluated. Absent in records written before attempts were taken up front.
   */
  readonly attempts?: number;
  /** Failures counted in the current window. */
  readonly failures: number;
  /** Start of the current window (ms): its first attempt. */
  readonly window_start: number;
  /** Set once the threshold was reached: no attempt is evaluated before this time (ms). */
  readonly locked_until?: number;
}

/** Per-peer attempt records of the internal API, shared by every instance on the store. */
export interface LockoutStore {
  /** The peer's record, or `undefined`. */
  get(peer: string): Promise<LockoutState | undefined>;
  /**
   * Replaces the peer's record by `change(current)` atomically: no other update of the peer,
   * on any instance, commits between the read `change` saw and the write. `change` may run
   * more than once (after a lost race); the record written is its last result. The record is
   * kept until `forgetAt(next)` (ms). `outbox(before, next)` names the messages committed with
   * the write (from its last run).
   *
   * @returns the record written
   */
  update(
    peer: string,
    change: (current: LockoutState | undefined) => LockoutState,
    forgetAt: (next: LockoutState) => number,
    outbox?: OutboxFor<[before: LockoutState | undefined, next: LockoutState]>,
  ): Promise<LockoutState>;
}
