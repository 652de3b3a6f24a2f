/**
 * A source of the current time, passed in so expiry, grace windows and lockouts can be tested
 * without sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * Waits `ms` milliseconds on the real timer: the default of the `sleep` dependencies that
 * retries and polls take, so their tests pass a sleep that returns at once.
 *
 * @param ms how long to wait
 * @returns a promise fulfilled after `ms`
 *
 * @example
 * ```ts
 * const started = Date.now();
 * await sleep(5);
 * if (Date.now() - started < 4) throw new Error("woke early");
 * ```
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A clock that only moves when told to.
 *
 * @example
 * ```ts
 * const clock = new FixedClock(Date.parse("2026-01-01T00:00:00Z"));
 * clock.advance(601_000); // a 600-second nonce is now expired
 * ```
 */
export class FixedClock implements Clock {
  /** @param ms the initial time in milliseconds since the epoch (default: now) */
  constructor(private ms: number = Date.now()) {}
  /** The time this clock is set to. */
  now(): number {
    return this.ms;
  }
  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.ms += ms;
  }
  /** Sets the clock to `ms`. */
  set(ms: number): void {
    this.ms = ms;
  }
}

/** Whole seconds since the epoch for `clock`, as JWT `iat`/`exp` want them. */
export function epochSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
