/**
 * The privacy core of the pipeline: a salt that changes every UTC day, and the visitor key
 * derived from it. Within one day the same IP and user agent give the same key (so unique
 * visitors can be counted); across days the keys are unlinkable, and the IP is never stored.
 *
 * @module
 */
import { createHash, createHmac } from "node:crypto";

/** The salt secret's length in bytes. */
export const SALT_SECRET_BYTES = 32;

/**
 * The salt of one UTC day (pure): HMAC-SHA256 keyed by the secret over the day `YYYY-MM-DD`.
 * Deriving it from the record's own day (not the clock) makes a replayed or backfilled record
 * get the key it would have had on the day.
 *
 * @param secret the salt secret (32 random bytes)
 * @param day the UTC day, `YYYY-MM-DD`
 * @returns 32 bytes
 *
 * @example
 * ```ts
 * const secret = crypto.getRandomValues(new Uint8Array(32));
 * if (dailySalt(secret, "2026-11-23").length !== 32) throw new Error("a 32-byte salt");
 * ```
 */
export function dailySalt(secret: Uint8Array, day: string): Uint8Array {
  return new Uint8Array(createHmac("sha256", secret).update(day, "utf8").digest());
}

/**
 * The visitor key (pure): lowercase hex SHA-256 over the day's salt, the client IP and the
 * user agent, each length-prefixed so no two different inputs can concatenate alike.
 *
 * @param salt the day's salt ({@linkcode dailySalt})
 * @param ip the client IP as CloudFront logged it
 * @param userAgent the user agent ("" when absent)
 * @returns 64 hex characters
 */
export function visitorKey(salt: Uint8Array, ip: string, userAgent: string): string {
  const hash = createHash("sha256").update(salt);
  for (const part of [ip, userAgent]) {
    const bytes = new TextEncoder().encode(part);
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, bytes.length);
    hash.update(length).update(bytes);
  }
  return hash.digest("hex");
}
