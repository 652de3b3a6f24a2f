/**
 * Opaque tokens (refresh tokens, nonces, console session and CSRF tokens): how one is made,
 * and the digest that is the only form in which the service stores one.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { base64url, type Random } from "@org/shared";

/** A fresh opaque token: 256 random bits, base64url. */
export function newOpaqueToken(random: Random): string {
  return base64url(random.bytes(32));
}

/** base64url SHA-256 of a token: the only form in which opaque tokens are stored. */
export function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}
