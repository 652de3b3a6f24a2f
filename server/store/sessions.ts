/**
 * Session families, their refresh tokens and the refresh snapshot rotation decides on.
 *
 * @module
 */
import type { ProofMark } from "./dpop.ts";
import type { OutboxFor } from "./side_records.ts";
import type { UserRecord } from "./users.ts";

/** A session: every refresh token descended from one code exchange. */
export interface SessionFamily {
  /** `ses_` followed by a ULID; the access token's `sid`. */
  readonly id: string;
  readonly user_id: string;
  readonly created_at: number;
  /** Absolute end of the session (ms), counted from the code exchange; refresh never extends it. */
  readonly expires_at: number;
  readonly revoked: boolean;
  readonly revoked_at?: number;
  /**
   * RFC 7638 thumbprint of the DPoP key the session was started with (RFC 9449): every
   * refresh of the family must carry a proof by that key. Absent for a Bearer session.
   */
  readonly dpop_jkt?: string;
  /** The app the session was started for (absent for sessions started before it was kept). */
  readonly client?: SessionClient;
  /**
   * What the device sent as `User-Agent` at sign-in, at most 256 characters; kept only under
   * `privacy.session_user_agent`.
   */
  readonly user_agent?: string;
  /**
   * The network the sign-in came from: its address cut to a prefix (IPv4 /24, IPv6 /48), never
   * the address itself; kept only under `privacy.session_ip_prefix`.
   */
  readonly ip_prefix?: string;
}

/** The app a session was started for, as its identity provider knows it. */
export interface SessionClient {
  /** The `[providers.<name>]` the user signed in with. */
  readonly provider: string;
  /** Our client id at that provider (the ID token's audience); `null` when not configured. */
  readonly client_id: string | null;
}

/** What is stored for one refresh token, keyed by the SHA-256 of the token. */
export interface RefreshRecord {
  /** base64url SHA-256 of the token; the token itself is never stored. */
  readonly hash: string;
  readonly family_id: string;
  readonly user_id: string;
  readonly issued_at: number;
  readonly expires_at: number;
  /** Set once the token was rotated (ms); a retired token is only good for a retry in grace. */
  readonly retired_at?: number;
  /** The token that replaced this one, sealed so only a holder of this token can open it. */
  readonly successor?: SealedSuccessor;
}

/** The successor of a retired refresh token, kept so a retry gets the same token back. */
export interface SealedSuccessor {
  /** base64url SHA-256 of the successor token (its record's key). */
  readonly hash: string;
  /**
   * The successor sealed under the retired token (`sessions/successor_seal.ts`): format v2 is
   * the successor XOR a pad derived from the retired token (43 characters); records retired by
   * the first release hold format v1 (AES-256-GCM under HKDF of the token, 95 characters).
   */
  readonly sealed: string;
  /**
   * The access-token hook's claims of the refresh that rotated the token: a retry within the
   * grace issues them again without calling the hook. Absent without a hook.
   */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/**
 * Everything a refresh decides on, read for one presented token hash: its record, its family,
 * its user and, for a retired token, whether its successor is still the live token.
 */
export interface RefreshSnapshot {
  readonly record: RefreshRecord;
  /** The family as stored (also when past its end: the caller decides expiry). */
  readonly family: SessionFamily | undefined;
  readonly user: UserRecord | undefined;
  /** For a retired record: whether its successor is stored and not retired itself. */
  readonly successorLive: boolean | undefined;
  /** Opaque versions {@linkcode SessionStore.rotate} checks. */
  readonly versions: {
    readonly record: string;
    readonly family: string | null;
    readonly user: string | null;
  };
}

/**
 * How {@linkcode SessionStore.rotate} ended:
 *
 * - `rotated`: committed.
 * - `raced`: another request of this process is rotating the same token right now (so the
 *   token was live when this request looked); nothing was written.
 * - `changed`: the record, its family or its user changed since the snapshot was read (so the
 *   token was live when it was read, if the snapshot said so); nothing was written.
 * - `unproven`: the snapshot did not hold, and it was not read for this request (the store
 *   answered from what it remembered), so it proves nothing about when the token was live;
 *   nothing was written.
 * - `replayed`: the DPoP proof's mark given with the rotation already exists (the proof was
 *   used); nothing was written.
 */
export type RotateOutcome = "rotated" | "raced" | "changed" | "unproven" | "replayed";

/** Session families and their refresh tokens. */
export interface SessionStore {
  /** Creates a family and its first refresh token in one atomic commit. */
  create(family: SessionFamily, refresh: RefreshRecord): Promise<void>;
  /** The family with `id`, or `undefined` (also once expired). */
  getFamily(id: string): Promise<SessionFamily | undefined>;
  /** The families of `ids` still live, as {@linkcode SessionStore.getFamily} finds them, in one read. */
  getFamilies(ids: readonly string[]): Promise<SessionFamily[]>;
  /** The refresh record for a token hash, or `undefined`. */
  getRefresh(hash: string): Promise<RefreshRecord | undefined>;
  /**
   * Marks a family revoked; false when it does not exist, already ended or was already
   * revoked. `outbox(family)` names the messages committed with the revocation (none when it
   * did not happen).
   */
  revokeFamily(id: string, at: number, outbox?: OutboxFor<[SessionFamily]>): Promise<boolean>;
  /** Ids of the user's families that are still stored. */
  familiesOfUser(userId: string): Promise<string[]>;
  /**
   * Records that `family` was used (refreshed) at `at`, apart from the family record itself so
   * no rotation's check on the family is disturbed. A later time never goes back (PostgreSQL);
   * on Deno KV the last write wins. Kept until the family's end.
   */
  markUsed(family: Pick<SessionFamily, "id" | "expires_at">, at: number): Promise<void>;
  /** When each of `ids` was last {@linkcode SessionStore.markUsed}; absent when never. */
  lastUsed(ids: readonly string[]): Promise<Map<string, number>>;
  /**
   * Revokes every family of the user; returns how many changed. `outbox(family)` is called
   * for each family revoked and its messages committed with that revocation.
   */
  revokeAllOfUser(userId: string, at: number, outbox?: OutboxFor<[SessionFamily]>): Promise<number>;
  /**
   * What a refresh of the token with `hash` decides on (record, family, user, successor), in
   * as few round trips as the store allows; `undefined` when no record has that hash. A store
   * may answer from what its own last rotation left (no I/O): such a snapshot holds only if
   * {@linkcode SessionStore.rotate} commits on it, so a caller that decides without rotating
   * reads the records themselves (`getRefresh`, `getFamily`). Called again after a rotation
   * that did not commit, it reads the store afresh.
   *
   * @param hash base64url SHA-256 of the presented token
   */
  readForRefresh(hash: string): Promise<RefreshSnapshot | undefined>;
  /**
   * Rotates in one atomic step: replaces the snapshot's record by `retired` and stores `next`,
   * only if the record, its family and its user are all unchanged since `snapshot`. With
   * `mark` (a refresh with a DPoP proof), the proof's mark is written in the same step, and
   * only if no unexpired mark of that proof exists: a replayed proof and a rotation cannot both
   * succeed, and nothing can leave the rotation without its mark or the reverse.
   *
   * @returns `rotated`, `replayed` (the proof was used: refuse it), or why not (the caller
   *   re-reads and decides again)
   */
  rotate(
    snapshot: RefreshSnapshot,
    retired: RefreshRecord,
    next: RefreshRecord,
    mark?: ProofMark,
  ): Promise<RotateOutcome>;
}
