/**
 * The operator-lockout rule as pure functions over a peer's record; the record itself is kept
 * in the store (`LockoutStore`) so every instance sharing it sees the same count.
 *
 * An attempt is taken from the peer's budget atomically in the store BEFORE its credential is
 * evaluated ({@linkcode takeAttempt}), so however many requests arrive at once, and on however
 * many instances, at most `threshold` credentials per peer and window are ever evaluated. A
 * success gives its attempt back ({@linkcode giveBack}); a failure stays counted and the one
 * that reaches `threshold` locks the peer out for a whole window ({@linkcode afterFailure}).
 *
 * @module
 */
import type { LockoutState } from "../store/lockout.ts";

/** `internal_api.lockout`: failures allowed per window, and the window (ms). */
export interface LockoutPolicy {
  readonly threshold: number;
  readonly windowMs: number;
}

/** What {@linkcode takeAttempt} decided. */
export interface TakenAttempt {
  /** The record to store. */
  readonly state: LockoutState;
  /** Whether this attempt may be evaluated. */
  readonly granted: boolean;
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

/** Attempts taken in the record's window and not given back (records before 0.2: failures). */
function attemptsOf(state: LockoutState): number {
  return state.attempts ?? state.failures;
}

/**
 * Takes one attempt from the peer's budget. Refused while the peer is locked out, and while
 * `threshold` attempts of the current window are taken (failed, or still being evaluated);
 * a request after the window starts a new one.
 *
 * @param state the peer's record, if any
 * @param now the time of the attempt (ms)
 * @param policy threshold and window
 * @returns the record to store and whether the attempt was granted
 *
 * @example
 * ```ts
 * const { state, granted } = takeAttempt(undefined, Date.now(), { threshold: 5, windowMs: 900_000 });
 * if (!granted) throw new Error("a first attempt is granted"); // then giveBack() or afterFailure()
 * ```
 */
export function takeAttempt(
  state: LockoutState | undefined,
  now: number,
  policy: LockoutPolicy,
): TakenAttempt {
  if (lockedForMs(state, now) > 0) return { state: state!, granted: false };
  if (state === undefined || now >= state.window_start + policy.windowMs) {
    return { state: { attempts: 1, failures: 0, window_start: now }, granted: true };
  }
  const attempts = attemptsOf(state);
  if (attempts >= policy.threshold) return { state, granted: false };
  return { state: { ...state, attempts: attempts + 1 }, granted: true };
}

/**
 * Seconds a refused attempt should wait: until the lockout ends, or else until the window in
 * which the budget is spent ends (at least 1).
 */
export function retryAfterSeconds(state: LockoutState, now: number, policy: LockoutPolicy): number {
  const until = state.locked_until !== undefined && state.locked_until > now
    ? state.locked_until
    : state.window_start + policy.windowMs;
  return Math.max(1, Math.ceil((until - now) / 1000));
}

/**
 * The record after an attempt taken in the window starting at `windowStart` succeeded: the
 * attempt goes back to the budget (operators who authenticate do not wear it down). Nothing
 * changes when that window has since ended.
 */
export function giveBack(state: LockoutState | undefined, windowStart: number): LockoutState {
  if (state === undefined) return { attempts: 0, failures: 0, window_start: windowStart };
  if (state.window_start !== windowStart) return state;
  return { ...state, attempts: Math.max(0, attemptsOf(state) - 1) };
}

/**
 * The record after an attempt failed. The failure that reaches `threshold` in the window
 * locks the peer out for a whole window from that moment.
 *
 * @param state the peer's record (as taken), if any
 * @param now the time of the failure (ms)
 * @param policy threshold and window
 * @returns the new record (`locked_until` set when this failure locked the peer out)
 *
 * @example
 * ```ts
 * const now = Date.now();
 * const policy = { threshold: 5, windowMs: 900_000 };
 * let s = undefined;
 * for (let i = 0; i < 5; i++) s = afterFailure(takeAttempt(s, now, policy).state, now, policy);
 * if (lockedForMs(s, now) !== 900_000) throw new Error("locked for the window");
 * ```
 */
export function afterFailure(
  state: LockoutState | undefined,
  now: number,
  policy: LockoutPolicy,
): LockoutState {
  const base = state ?? { attempts: 1, failures: 0, window_start: now };
  const failures = base.failures + 1;
  const next = { ...base, attempts: Math.max(attemptsOf(base), failures), failures };
  return failures >= policy.threshold && lockedForMs(base, now) === 0
    ? { ...next, locked_until: now + policy.windowMs }
    : next;
}

/** When a record can be forgotten (ms): the end of its window or of its lockout. */
export function forgetAt(state: LockoutState, policy: LockoutPolicy): number {
  return Math.max(state.window_start + policy.windowMs, state.locked_until ?? 0);
}
