import type { Clock, Random } from "@org/shared";
import { encodeTime, monotonicFactory } from "ulid";

/** Makes prefixed ULIDs (`usr_…`, `ses_…`) from the injected clock and randomness. */
export interface IdFactory {
  /** A new id: `prefix` + `_` + ULID. */
  next(prefix: "usr" | "ses" | "msg" | "aud"): string;
  /** A bare ULID, for ids nothing stores (`X-Request-Id`). */
  ulid(): string;
}

/**
 * Creates an {@linkcode IdFactory}; ids are monotonic within a process.
 *
 * @param clock time source of the ULID timestamp
 * @param random source of the ULID randomness
 * @returns the factory
 */
export function createIdFactory(clock: Clock, random: Random): IdFactory {
  // A ULID in a new millisecond takes 16 random values. Drawn one byte per call they cost
  // ~7 µs; from a pool refilled 256 bytes at a time ~0.25 µs, which matters now that every
  // request gets an id (X-Request-Id).
  let pool: Uint8Array = new Uint8Array(0);
  let next = 0;
  const ulid = monotonicFactory(() => {
    if (next === pool.length) {
      pool = random.bytes(256);
      next = 0;
    }
    return pool[next++]! / 256;
  });
  return { next: (prefix) => `${prefix}_${ulid(clock.now())}`, ulid: () => ulid(clock.now()) };
}

/** The shape of a user id: `usr_` and a 26-character Crockford base32 ULID (upper case). */
export const USER_ID_PATTERN: RegExp = /^usr_[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * True when `id` has the shape of a user id this service generates. Anything else cannot name
 * a user, so callers answer "not found" without a store lookup (and without handing the store
 * a key it would refuse, such as one over KV's key-size limit).
 */
export function isUserId(id: string): boolean {
  return USER_ID_PATTERN.test(id);
}

/** True when `id` has the shape of a session id (`ses_` and a ULID); see {@linkcode isUserId}. */
export function isSessionId(id: string): boolean {
  return /^ses_[0-9A-HJKMNP-TV-Z]{26}$/.test(id);
}

/** Latest time a ULID can hold (ms). */
const ULID_TIME_MAX = 2 ** 48 - 1;

/**
 * The smallest id with `prefix` made at `ms` or later: ids made before `ms` sort below it, the
 * others at or above, so a time range is a key range.
 */
export function firstIdAt(prefix: "aud", ms: number): string {
  return `${prefix}_${encodeTime(Math.min(ULID_TIME_MAX, Math.max(0, Math.floor(ms))), 10)}`;
}
