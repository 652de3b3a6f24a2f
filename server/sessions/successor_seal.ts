/**
 * Sealing the successor of a retired refresh token under the retired token itself, so the store
 * never holds a refresh token in plaintext, yet a retry that presents the old token recovers
 * the very same successor.
 *
 * Format v2 (what is sealed now): `base64url(successor ⊕ SHA-256(PAD_LABEL ‖ old token))`, 43
 * characters. Sound as a one-time pad because
 * - the old token carries 256 random bits, so the labelled hash is a uniform 256-bit pad that
 *   only a holder of the old token can compute (the store keeps `SHA-256(old token)`, a different
 *   value: the label separates the two);
 * - a token is retired at most once (the rotation commit is a compare-and-swap), so each pad
 *   seals at most one stored successor;
 * - integrity comes from the stored successor hash: the caller accepts an opened token only when
 *   its SHA-256 equals `successor.hash`.
 * It costs one SHA-256 (~3 µs per rotation with the encoding) where v1 cost ~17 µs.
 *
 * Format v1 (the first release; 95 characters): HKDF-SHA256 of the old token → AES-256-GCM,
 * `iv ‖ ciphertext ‖ tag`, the old token's hash as associated data. Only opened, so records
 * retired by v1 keep answering retries across an upgrade.
 *
 * @module
 */
import { createDecipheriv, createHash, hkdfSync } from "node:crypto";
import { Buffer } from "node:buffer";

const PAD_LABEL = "token-exchange refresh successor pad v2\0";
const TOKEN_BYTES = 32;
const V1_INFO = "token-exchange refresh successor v1";
const V1_IV_BYTES = 12;
const V1_TAG_BYTES = 16;
const EMPTY = new Uint8Array(0);

/**
 * Seals `successor` under `presented` (format v2).
 *
 * @param presented the token being retired: 256 random bits, base64url
 * @param successor the new token to seal (one of ours: 256 bits, base64url)
 * @returns the sealed form, base64url (43 characters)
 *
 * @example
 * ```ts
 * import { cryptoRandom } from "@org/shared";
 * import { newOpaqueToken, tokenHash } from "./opaque_token.ts";
 *
 * const [old, next] = [newOpaqueToken(cryptoRandom), newOpaqueToken(cryptoRandom)];
 * const sealed = sealSuccessor(old, next);
 * if (openSuccessor(old, tokenHash(old), sealed) !== next) throw new Error("opens to the successor");
 * ```
 */
export function sealSuccessor(presented: string, successor: string): string {
  return xorPad(presented, Buffer.from(successor, "base64url")).toString("base64url");
}

/**
 * Opens what {@linkcode sealSuccessor} sealed (format v2), or a successor sealed by the first
 * release (format v1).
 *
 * A v2 seal opens to some token under any presented token; only the caller's check of the
 * result against the stored successor hash tells a right token from a wrong one.
 *
 * @param presented the retired token presented again
 * @param presentedHash its stored hash (the associated data of format v1)
 * @param sealed the stored sealed successor
 * @returns the successor token, or `undefined` when the sealed form is malformed or a v1 seal
 *   does not open (wrong token, tampering)
 */
export function openSuccessor(
  presented: string,
  presentedHash: string,
  sealed: string,
): string | undefined {
  const raw = Buffer.from(sealed, "base64url");
  if (raw.length === TOKEN_BYTES) return xorPad(presented, raw).toString("base64url");
  return raw.length > V1_IV_BYTES + V1_TAG_BYTES
    ? openV1(presented, presentedHash, raw)
    : undefined;
}

/** `bytes ⊕ SHA-256(PAD_LABEL ‖ presented)`, in place. */
function xorPad(presented: string, bytes: Buffer): Buffer {
  const pad = createHash("sha256").update(PAD_LABEL).update(presented).digest();
  for (let i = 0; i < bytes.length; i++) bytes[i] = bytes[i]! ^ pad[i]!;
  return bytes;
}

function openV1(presented: string, presentedHash: string, raw: Buffer): string | undefined {
  try {
    // The token carries 256 random bits, so HKDF needs no salt to give a uniform key.
    const key = new Uint8Array(hkdfSync("sha256", presented, EMPTY, V1_INFO, 32));
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, V1_IV_BYTES));
    decipher.setAAD(Buffer.from(presentedHash));
    decipher.setAuthTag(raw.subarray(raw.length - V1_TAG_BYTES));
    const out = Buffer.concat([
      decipher.update(raw.subarray(V1_IV_BYTES, raw.length - V1_TAG_BYTES)),
      decipher.final(),
    ]);
    return out.toString("utf8");
  } catch {
    return undefined;
  }
}
