/**
 * Users and their (provider, external_id) index, and the counters kept with them.
 *
 * @module
 */
import type { OutboxFor, SideRecord } from "./side_records.ts";

/** Values seen for a user's status; any status but `active` is refused at sign-in. */
export type UserStatus = "active" | "suspended" | "Deleted";

/** A user known to the service, keyed by id, unique on (`provider`, `external_id`). */
export interface UserRecord {
  /** `usr_` followed by a ULID. */
  readonly id: string;
  readonly provider: string;
  readonly external_id: string;
  readonly email: string;
  readonly display_name: string;
  readonly status: UserStatus | string;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Private claims merged over `token.custom_claims` in every access token. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** Milliseconds since the epoch. */
  readonly created_at: number;
  readonly updated_at: number;
}

/** Outcome of a create that must be unique. */
export type CreateResult = { ok: true } | { ok: false; reason: "conflict" };

/** Users and their (provider, external_id) index. */
export interface UserStore {
  /** The user with `id`, or `undefined`. */
  get(id: string): Promise<UserRecord | undefined>;
  /** The user signed in through `provider` as `externalId`, or `undefined`. */
  findByExternalId(provider: string, externalId: string): Promise<UserRecord | undefined>;
  /**
   * Creates `user` unless its id or (provider, external_id) is taken; `outbox` (the
   * `user.created` messages) is committed with it, and only if it is created.
   */
  create(user: UserRecord, outbox?: readonly SideRecord[]): Promise<CreateResult>;
  /**
   * Applies `change` to the current record atomically (retried on a concurrent write).
   * Returns the new record, or `undefined` when the user does not exist. `outbox(before,
   * after)` names the messages committed with the change.
   */
  update(
    id: string,
    change: (user: UserRecord) => UserRecord,
    outbox?: OutboxFor<[before: UserRecord, after: UserRecord]>,
  ): Promise<UserRecord | undefined>;
  /** Users in id (creation) order after `cursor` (an id), at most `limit`. */
  list(cursor: string | undefined, limit: number): Promise<UserRecord[]>;
}

/** Counters kept atomically with the writes they count, so stats need no scan. */
export interface StatsStore {
  /** Users per status and sessions created-minus-revoked (expired ones leave at the sweep). */
  read(): Promise<{ users: Record<string, number>; sessions: number }>;
}
