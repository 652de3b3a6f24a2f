/**
 * The single-use marks of DPoP proofs and the secret DPoP nonces derive from.
 *
 * @module
 */

/**
 * The single-use mark of a DPoP proof (RFC 9449 §11.1), as {@linkcode DpopStore.markProofUsed}
 * writes it and `SessionStore.rotate` commits it with a rotation.
 */
export interface ProofMark {
  /** A fixed-size digest naming the proof (its key thumbprint and `jti`). */
  readonly id: string;
  /** Until when (ms) the proof counts as used: past it the proof's `iat` is too old anyway. */
  readonly expiresAt: number;
}

/** The single-use marks of DPoP proofs (RFC 9449) and the secret DPoP nonces derive from. */
export interface DpopStore {
  /**
   * Marks one proof used until `expiresAt` (ms), in one atomic step shared by every instance
   * on the store: false when an unexpired mark already exists (the proof is a replay).
   *
   * @param id a fixed-size digest naming the proof (its key thumbprint and `jti`)
   */
  markProofUsed(id: string, expiresAt: number): Promise<boolean>;
  /**
   * The secret every instance derives DPoP nonces from: the stored one, or `candidate` stored
   * now when there is none yet (the first writer wins; everyone gets the winner's).
   */
  nonceSecret(candidate: string): Promise<string>;
}
