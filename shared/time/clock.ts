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
