/**
 * Nonces of the direct ID-token grant and the single-use markers of redeemed ID tokens.
 *
 * @module
 */

/** A nonce minted by `POST /nonce`, keyed by the SHA-256 of its value (never the value). */
export interface NonceRecord {
  /** base64url SHA-256 of the nonce. */
  readonly hash: string;
  readonly created_at: number;
  /** End of the nonce's life (ms); checked against the service clock on redemption. */
  readonly expires_at: number;
}

/** The single-use marker of one redeemed ID token, kept until the token could no longer verify. */
export interface AssertionMark {
  /** The token's issuer: `jti` values are unique per issuer. */
  readonly issuer: string;
  /** `jti:<jti>` when the token has a `jti`, else `sha256:<base64url digest of the token>`. */
  readonly id: string;
  /** When the marker may go (ms): the token's `exp` plus the allowed clock skew. */
  readonly expires_at: number;
}

/** How a redemption ended. */
export type RedeemOutcome =
  | "redeemed"
  | "nonce_unknown"
  | "nonce_expired"
  | "assertion_used";

/** Nonces of the direct ID-token grant and the markers of ID tokens already redeemed. */
export interface NonceStore {
  /** Stores a freshly minted nonce (its hash) until `record.expires_at`. */
  put(record: NonceRecord): Promise<void>;
  /**
   * In one atomic step: refuses when `assertion` is already marked, else consumes the first
   * stored, unexpired nonce among `nonceHashes` and marks `assertion` used.
   *
   * @param nonceHashes the hashes the ID token's `nonce` claim may stand for
   * @param assertion the marker of the ID token being redeemed
   * @returns `redeemed`, or why not
   */
  redeem(nonceHashes: readonly string[], assertion: AssertionMark): Promise<RedeemOutcome>;
}
