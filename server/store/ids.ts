import { createHash } from "node:crypto";
import { base64url, type Clock, type Random } from "@org/shared";
import { monotonicFactory } from "ulid";

/** Makes prefixed ULIDs (`usr_…`, `ses_…`) from the injected clock and randomness. */
export interface IdFactory {
  /** A new id: `prefix` + `_` + ULID. */
  next(prefix: "usr" | "ses"): string;
}

/**
 * Creates an {@linkcode IdFactory}; ids are monotonic within a process.
 *
 * @param clock time source of the ULID timestamp
 * @param random source of the ULID randomness
 * @returns the factory
 */
export function createIdFactory(clock: Clock, random: Random): IdFactory {
  const ulid = monotonicFactory(() => random.bytes(1)[0]! / 256);
  return { next: (prefix) => `${prefix}_${ulid(clock.now())}` };
}

/** A fresh opaque token: 256 random bits, base64url. */
export function newOpaqueToken(random: Random): string {
  return base64url(random.bytes(32));
}

/** base64url SHA-256 of a token: the only form in which opaque tokens are stored. */
export function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}
