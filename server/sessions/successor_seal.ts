import { createCipheriv, createDecipheriv, hkdfSync } from "node:crypto";
import { Buffer } from "node:buffer";
import type { Random } from "@org/shared";

const INFO = "token-exchange refresh successor v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;
const EMPTY = new Uint8Array(0);

/**
 * Seals a successor refresh token under a key derived from the token it replaces
 * (HKDF-SHA256 → AES-256-GCM, the old token's hash as associated data). The store keeps only
 * the sealed form, so it never holds a refresh token in plaintext, yet a retry that presents
 * the old token can recover the very same successor.
 *
 * Synchronous `node:crypto` on purpose: it runs on every rotation, and the async WebCrypto
 * round trips cost more than the work itself.
 *
 * @param presented the token being retired (the key material)
 * @param presentedHash its stored hash (bound as associated data)
 * @param successor the new token to seal
 * @param random source of the 96-bit IV
 * @returns base64url `iv ‖ ciphertext ‖ tag`
 *
 * @example
 * ```ts
 * const sealed = sealSuccessor(old, tokenHash(old), next, cryptoRandom);
 * openSuccessor(old, tokenHash(old), sealed); // next
 * ```
 */
export function sealSuccessor(
  presented: string,
  presentedHash: string,
  successor: string,
  random: Random,
): string {
  const iv = random.bytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", deriveKey(presented), iv);
  cipher.setAAD(Buffer.from(presentedHash));
  // GCM is a stream mode: `final()` adds nothing, so the ciphertext is `update()`'s output.
  const body = cipher.update(successor, "utf8");
  cipher.final();
  const out = Buffer.allocUnsafe(IV_BYTES + body.length + TAG_BYTES);
  out.set(iv, 0);
  out.set(body, IV_BYTES);
  out.set(cipher.getAuthTag(), IV_BYTES + body.length);
  return out.toString("base64url");
}

/**
 * Opens what {@linkcode sealSuccessor} sealed.
 *
 * @param presented the retired token presented again
 * @param presentedHash its stored hash
 * @param sealed the stored sealed successor
 * @returns the successor token, or `undefined` when it does not open (wrong token, tampering)
 */
export function openSuccessor(
  presented: string,
  presentedHash: string,
  sealed: string,
): string | undefined {
  const raw = Buffer.from(sealed, "base64url");
  if (raw.length <= IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv(
      "aes-256-gcm",
      deriveKey(presented),
      raw.subarray(0, IV_BYTES),
    );
    decipher.setAAD(Buffer.from(presentedHash));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    const out = Buffer.concat([
      decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
      decipher.final(),
    ]);
    return out.toString("utf8");
  } catch {
    return undefined;
  }
}

function deriveKey(presented: string): Uint8Array {
  // The token carries 256 random bits, so HKDF needs no salt to give a uniform key.
  return new Uint8Array(hkdfSync("sha256", presented, EMPTY, INFO, 32));
}
