/**
 * Provider refresh tokens kept for revocation at deletion, and the revocation queue.
 *
 * @module
 */

/** The Apple refresh token kept for a user, sealed (`providers/apple_revocation.ts`). */
export interface KeptProviderToken {
  readonly user_id: string;
  /** The provider (config name) that issued it. */
  readonly provider: string;
  /** The token sealed under `keys.encryption_key`; never stored plain. */
  readonly sealed: string;
}

/** One revocation waiting in the queue: the kept token of a deleted user, and its attempts. */
export interface RevocationJob extends KeptProviderToken {
  /** Failed attempts so far. */
  readonly attempts: number;
  /** Earliest time (ms) of the next attempt. */
  readonly next_at: number;
  /** Until this time (ms) one instance holds the job; no other instance takes it before. */
  readonly leased_until: number;
  /** Why the last attempt failed (no token material). */
  readonly last_error?: string;
}

/**
 * The provider refresh tokens kept so a user's deletion can revoke them at the provider (Sign
 * in with Apple, App Store Review Guideline 5.1.1(v)), and the durable queue of revocations.
 */
export interface ProviderTokenStore {
  /** Keeps `token` for its user, replacing one kept earlier (the newest sign-in's wins). */
  keep(token: KeptProviderToken): Promise<void>;
  /**
   * In one atomic step, moves the user's kept token (if any) into the queue, due at `at`. A job
   * still queued for the user (deleted, restored, signed in and deleted again) is replaced: at
   * Apple, revoking the newest token ends the user's authorization of the app as a whole.
   *
   * @returns whether a token was queued
   */
  queue(userId: string, at: number): Promise<boolean>;
  /**
   * Leases up to `limit` jobs due at `now` (`next_at <= now`, no live lease) until
   * `leasedUntil`, so that no other caller, on any instance, gets them meanwhile.
   */
  lease(now: number, leasedUntil: number, limit: number): Promise<RevocationJob[]>;
  /** Removes a job that succeeded. */
  done(userId: string): Promise<void>;
  /** Puts a failed job back: one more attempt counted, due at `nextAt`, its lease released. */
  retry(userId: string, nextAt: number, error: string): Promise<void>;
  /** How many jobs wait in the queue (leased or not). */
  pending(): Promise<number>;
}
