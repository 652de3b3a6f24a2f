/**
 * Sealing store-generated private keys under `keys.encryption_key`, so the store (a KV file,
 * its backups, a PostgreSQL dump) holds only opaque material. Done by the key manager above
 * the store: every store implementation persists the same sealed string.
 *
 * Format: `sealed-v1:` + base64url(`salt ‖ iv ‖ ciphertext ‖ tag`). The AES-256-GCM key is
 * HKDF-SHA256 of the secret with a fresh 16-byte salt per seal; the key's `kid` is the
 * associated data, so a sealed key cannot be moved to another ring entry.
 *
 * @module
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { Buffer } from "node:buffer";

/** Prefix of a sealed key; plain base64 PKCS#8 never contains `:`. */
export const SEALED_PREFIX = "sealed-v1:";
/** Fewest bytes `keys.encryption_key` may have: HKDF does not stretch a weak secret. */
export const MIN_ENCRYPTION_KEY_BYTES = 32;

const INFO = "token-exchange signing key seal v1";
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Seals and opens private keys under one secret. */
export interface KeySealer {
  /**
   * @param pkcs8 the private key, base64 PKCS#8 DER
   * @param kid the key's id (bound as associated data)
   * @returns the sealed form ({@linkcode SEALED_PREFIX}…)
   */
  seal(pkcs8: string, kid: string): string;
  /**
   * @param sealed what {@linkcode KeySealer.seal} returned
   * @param kid the key's id
   * @returns the base64 PKCS#8 DER, or `undefined` when this secret does not open it (another
   *   secret, another `kid`, or tampering)
   */
  open(sealed: string, kid: string): string | undefined;
}

/** True when a stored `pkcs8` value is sealed (not plain base64 DER). */
export function isSealed(stored: string): boolean {
  return stored.startsWith(SEALED_PREFIX);
}

/**
 * A sealer for `secret` (`keys.encryption_key`, at least 32 bytes, checked by the config).
 *
 * @param secret the encryption secret
 * @returns the sealer
 *
 * @example
 * ```ts
 * function roundTrip(pkcs8: string, kid: string) {
 *   const sealer = createKeySealer(Deno.env.get("TE_KEYS_SECRET")!);
 *   const stored = sealer.seal(pkcs8, kid);
 *   return sealer.open(stored, kid); // pkcs8
 * }
 * ```
 */
export function createKeySealer(secret: string): KeySealer {
  const ikm = Buffer.from(secret, "utf8");
  const keyFor = (salt: Uint8Array) => new Uint8Array(hkdfSync("sha256", ikm, salt, INFO, 32));
  return {
    seal(pkcs8, kid) {
      const salt = randomBytes(SALT_BYTES);
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", keyFor(salt), iv);
      cipher.setAAD(Buffer.from(kid, "utf8"));
      const body = Buffer.concat([cipher.update(Buffer.from(pkcs8, "base64")), cipher.final()]);
      const all = Buffer.concat([salt, iv, body, cipher.getAuthTag()]);
      return SEALED_PREFIX + all.toString("base64url");
    },
    open(sealed, kid) {
      if (!isSealed(sealed)) return undefined;
      const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), "base64url");
      if (raw.length <= SALT_BYTES + IV_BYTES + TAG_BYTES) return undefined;
      const salt = raw.subarray(0, SALT_BYTES);
      const iv = raw.subarray(SALT_BYTES, SALT_BYTES + IV_BYTES);
      try {
        const decipher = createDecipheriv("aes-256-gcm", keyFor(salt), iv);
        decipher.setAAD(Buffer.from(kid, "utf8"));
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        const out = Buffer.concat([
          decipher.update(raw.subarray(SALT_BYTES + IV_BYTES, raw.length - TAG_BYTES)),
          decipher.final(),
        ]);
        return out.toString("base64");
      } catch {
        return undefined;
      }
    },
  };
}
