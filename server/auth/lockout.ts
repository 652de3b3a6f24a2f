/**
 * The operator-lockout rule as pure functions over a peer's failure record; the record itself
 * is kept in the store (`LockoutStore`) so every instance sharing it sees the same count.
 *
 * @module
 */
import type { LockoutState } from "../store/store.ts";

/** `internal_api.lockout`: failures allowed per window, and the window (ms). */
export interface LockoutPolicy {
  readonly threshold: number;
  readonly windowMs: number;
}

/**
 * Milliseconds the peer stays locked out at `now`; 0 when it may try.
 *
 * @param state the peer's record, if any
 * @param now the current time (ms)
 */
export function lockedForMs(state: LockoutState | undefined, now: number): number {
  return state?.locked_until !== undefined && state.locked_until > now
    ? state.locked_until - now
    : 0;
}

/**
 * The record after one more failed attempt. Failures count within a window that starts at the
 * first failure; a failure after the window starts a new one. The failure that reaches
 * `threshold` locks the peer out for a whole window from that moment.
 *
 * @param state the peer's record, if any
 * @param now the time of the failure (ms)
 * @param policy threshold and window
 * @returns the new record (`locked_until` set when this failure locked the peer out)
 *
 * @example
 * ```ts
 * let s = undefined;
 * for (let i = 0; i < 5; i++) s = afterFailure(s, now, { threshold: 5, windowMs: 900_000 });
 * lockedForMs(s, now); // 900000
 * ```
 */
export function afterFailure(
  state: LockoutState | undefined,
  now: number,
  policy: LockoutPolicy,
): LockoutState {
  const fresh = state === undefined || now >= state.window_start + policy.windowMs;
  const failures = fresh ? 1 : state.failures + 1;
  const window_start = fresh ? now : state.window_start;
  return failures >= policy.threshold
    ? { failures, window_start, locked_until: now + policy.windowMs }
    : { failures, window_start };
}

/** When a record can be forgotten (ms): the end of its window or of its lockout. */
export function forgetAt(state: LockoutState, policy: LockoutPolicy): number {
  return Math.max(state.window_start + policy.windowMs, state.locked_until ?? 0);
}
