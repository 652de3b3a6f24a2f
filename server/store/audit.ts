/**
 * The audit trail: operator actions and security events, kept with their changes.
 *
 * @module
 */

/** Who did something the audit trail records. */
export interface Actor {
  /**
   * `operator` (the principal's subject), `user` (a user id: sign-in, logout), `peer` (an
   * address: failed operator authentication), `provider` (its config name: Apple's
   * notifications) or `service` (the service's own decisions, e.g. reuse detection).
   */
  readonly type: "operator" | "user" | "peer" | "provider" | "service";
  readonly id: string;
}

/**
 * One entry of the audit trail: an operator action or a security event, written in the same
 * commit as the change where the store allows (`audit/audit_trail.ts` builds them). Ids, field
 * names and states only: never a token, a secret, a claim value or metadata.
 */
export interface AuditRecord {
  /** `aud_` followed by a ULID (its time is `at`): the listing's order. */
  readonly id: string;
  /** When it happened (ms). */
  readonly at: number;
  readonly actor: Actor;
  /** An operator action (`user.update`) or a webhook event type (`session.revoked`). */
  readonly action: string;
  /** The user concerned, when there is one. */
  readonly user?: string;
  /** What else is worth knowing (ids, field names, reasons). */
  readonly details: Readonly<Record<string, unknown>>;
  /** Kept until this time (ms): `at` plus `audit.retention`. */
  readonly expires_at: number;
}

/** Which audit records a listing wants; every field given must match. */
export interface AuditQuery {
  /** Only records with a smaller id (the previous page's last one). */
  readonly before?: string;
  /** The actor's id. */
  readonly actor?: string;
  readonly action?: string;
  readonly user?: string;
  /** `at` at or after this time (ms). */
  readonly from?: number;
  /** `at` before this time (ms). */
  readonly to?: number;
}

/** The audit trail (the operator actions and security events written with their changes). */
export interface AuditStore {
  /** Writes `records` on their own (for actions whose change has no commit of its own). */
  append(records: readonly AuditRecord[]): Promise<void>;
  /** Records matching `query`, newest first, at most `limit`. */
  list(query: AuditQuery, limit: number): Promise<AuditRecord[]>;
}
