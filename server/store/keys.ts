/**
 * The signing key ring and where it is kept.
 *
 * @module
 */

/** One key of the signing key ring. */
export interface StoredKey {
  readonly kid: string;
  /** base64url Ed25519 public key (JWK `x`). */
  readonly x: string;
  /** base64 PKCS#8 DER, only for keys generated into the store (never for file keys). */
  readonly pkcs8?: string;
  /** Where the private key lives. */
  readonly source: "store" | "file";
  readonly created_at: number;
  /** After this time (ms) the key is no longer published; unset while active. */
  readonly retire_at?: number;
}

/** The signing key ring: one active signer plus keys still published for verification. */
export interface KeyRing {
  readonly active_kid: string;
  readonly keys: readonly StoredKey[];
}

/** Where the signing key ring is kept. */
export interface KeyRingStore {
  /** The ring and an opaque version for {@linkcode KeyRingStore.save}. */
  load(): Promise<{ ring: KeyRing | undefined; version: string | null }>;
  /** Saves `ring` only if the stored version is still `version`; false when it lost a race. */
  save(ring: KeyRing, version: string | null): Promise<boolean>;
}
