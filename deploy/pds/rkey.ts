/**
 * The record key of a post's `site.standard.document` record, derived from the post's path so
 * that the site (rendering `<link rel="site.standard.document">`) and `deploy pds sync` (writing
 * the record) agree without talking to each other, and so that other tools derive the same key.
 *
 * The key is an AT Protocol TID: 13 characters of the sortable base32 alphabet
 * `234567abcdefghijklmnopqrstuvwxyz` encoding a 63-bit integer. When the path carries a date
 * (`YYYY/MM/DD` or `YYYY-MM-DD`), the integer is that UTC day's microsecond timestamp shifted left
 * 10 bits, OR the low 10 bits of the path's 64-bit FNV-1a hash, so records of dated posts sort by
 * date like ordinary TIDs; otherwise it is the low 63 bits of that hash.
 *
 * @example
 * ```ts
 * import { recordKeyForPath } from "@org/deploy/rkey";
 * recordKeyForPath("/posts/hello-world/"); // "7m7eb4ia7xeuo"
 * ```
 *
 * @module
 */

/** The sortable base32 alphabet of AT Protocol TIDs. */
export const TID_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz";

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const U64 = 0xffffffffffffffffn;
const U63 = 0x7fffffffffffffffn;
const CLOCK_BITS = 0x3ffn;
const DATE = /(\d{4})[/-](\d{2})[/-](\d{2})/;

/**
 * The record key (a TID) for a post path.
 *
 * @param path the post's URL path exactly as published, e.g. `/posts/hello-world/` (a trailing
 *   slash matters: it is part of the hashed text)
 * @returns 13 characters of {@linkcode TID_ALPHABET}
 *
 * @example
 * ```ts
 * recordKeyForPath("/blog/2026/06/05/how-to/"); // "3mnitfsis22os"
 * ```
 */
export function recordKeyForPath(path: string): string {
  const hash = fnv1a64(path);
  const day = dayOfPath(path);
  const value = day === undefined ? hash & U63 : (BigInt(day) * 1000n << 10n) | (hash & CLOCK_BITS);
  return encodeTid(value);
}

/**
 * A new TID from the clock: microseconds since the epoch, and ten random bits as the clock id
 * (what `init` names a publication, and an announcement post's key).
 *
 * @param nowMs milliseconds since the epoch
 * @param random10 ten random bits (0–1023)
 * @returns the 13-character TID
 */
export function tidFromClock(nowMs: number, random10: number): string {
  return encodeTid((BigInt(Math.trunc(nowMs)) * 1000n << 10n) | BigInt(random10 & 0x3ff));
}

/**
 * Encodes a 63-bit integer as a TID: 13 sortable base32 characters, most significant first.
 *
 * @param value a non-negative integer below 2^63
 * @returns the 13-character TID
 * @throws {RangeError} when `value` does not fit 63 bits
 */
export function encodeTid(value: bigint): string {
  if (value < 0n || value > U63) throw new RangeError(`a TID holds 63 bits (got ${value})`);
  let out = "";
  for (let i = 0; i < 13; i++) {
    out = TID_ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

/** 64-bit FNV-1a over the path's UTF-8 bytes. */
function fnv1a64(text: string): bigint {
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    hash = ((hash ^ BigInt(byte)) * FNV_PRIME) & U64;
  }
  return hash;
}

/**
 * Milliseconds since the epoch of the UTC day the path names; undefined when it names none or
 * names an impossible date (2026-02-30 is not a date, so such a path hashes like any other).
 */
function dayOfPath(path: string): number | undefined {
  const match = DATE.exec(path);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const date = new Date(ms);
  const real = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day;
  return real && ms >= 0 ? ms : undefined;
}
