/**
 * The storage interfaces of the token-exchange service and the records they keep. One small
 * interface per concern; {@linkcode Store} bundles them. Implementations: Deno KV
 * (`createKvStore` in `./kv_store.ts`) and PostgreSQL (`createPgStore` in `./pg_store.ts`),
 * held to the same behaviour by `./store_conformance_test.ts`.
 *
 * @module
 */

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
 */
export type RotateOutcome = "rotated" | "raced" | "changed" | "unproven";

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

/**
 * One webhook message for one endpoint, written to the outbox in the same atomic commit as the
 * change it reports (`webhooks/events.ts` builds them), so no change is without its message and
 * no message without its change. It never holds a token or a secret.
 */
export interface OutboxMessage {
  /** `msg_` followed by a ULID: the Standard Webhooks `webhook-id`, shared by every endpoint. */
  readonly id: string;
  /** The endpoint's stable id (from its URL, `config/webhooks.ts`); sent per endpoint in id order. */
  readonly endpoint: string;
  /** The event type, e.g. `user.created`. */
  readonly type: string;
  /** When the change was committed (ms). */
  readonly created_at: number;
  /** The event's `data` object. */
  readonly data: Readonly<Record<string, unknown>>;
}

/** An outbox message not yet delivered, with its delivery state. */
export interface PendingDelivery extends OutboxMessage {
  /** Attempts made so far (since the last redelivery). */
  readonly attempts: number;
  /** No attempt before this time (ms). */
  readonly next_attempt_at: number;
  /**
   * Start of the retry window (ms): `created_at`, or the time an operator asked for a
   * redelivery (absent: `created_at`).
   */
  readonly queued_at?: number;
  /** The claim of the instance sending it now: no other instance takes it before `lease_until`. */
  readonly lease_until?: number;
  readonly lease_owner?: string;
  /** What the last failed attempt saw (a status or a network error), for operators. */
  readonly last_error?: string;
}

/** One attempt to deliver a message to an endpoint, as operators see it. */
export interface DeliveryAttempt {
  /** When it started (ms). */
  readonly at: number;
  /** The endpoint's HTTP status; absent when no answer came (connection failed, timeout). */
  readonly status?: number;
  /** Why it failed (`HTTP 503`, `no answer within 10s`, …); absent when delivered. */
  readonly error?: string;
  /** How long it took (ms). */
  readonly duration_ms: number;
}

/** Where one message stands for one endpoint. */
export type DeliveryState = "pending" | "delivered" | "failed";

/**
 * The record of one message for one endpoint (`GET /internal/webhooks/deliveries`): written
 * with the outbox message, updated at every attempt, kept once delivered or given up (`failed`)
 * until `expires_at` (`webhooks.retention`).
 */
export interface DeliveryRecord extends OutboxMessage {
  readonly state: DeliveryState;
  /** Every attempt, oldest first, across redeliveries. */
  readonly attempts: readonly DeliveryAttempt[];
  /** While pending: no attempt before this time (ms). */
  readonly next_attempt_at?: number;
  /** Once delivered or failed: kept until this time (ms), then the sweep removes it. */
  readonly expires_at?: number;
}

/** How a claimed message's attempt ended, for {@linkcode OutboxStore.settle}. */
export type Settlement =
  /** Failed; tried again at `retry_at` (ms). */
  | { readonly retry_at: number }
  /** Delivered (a 2xx), or given up (`failed`); the record is kept until `keep_until` (ms). */
  | { readonly state: "delivered" | "failed"; readonly keep_until: number };

/** What {@linkcode OutboxStore.redeliver} did. */
export interface Redelivery {
  readonly record: DeliveryRecord;
  /** False when the message was still pending (nothing changed). */
  readonly requeued: boolean;
}

/** Which deliveries a listing wants; every field given must match. */
export interface DeliveryQuery {
  /** Only deliveries before this one in the listing's order (its `[message id, endpoint]`). */
  readonly before?: readonly [id: string, endpoint: string];
  readonly endpoint?: string;
  readonly type?: string;
  readonly state?: DeliveryState;
}

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

/** What a write commits beside its change: webhook messages and audit records. */
export type SideRecord = OutboxMessage | AuditRecord;

/** True when `r` is an audit record (else it is an outbox message). */
export function isAuditRecord(r: SideRecord): r is AuditRecord {
  return "action" in r;
}

/**
 * Records a write also commits: built from the record(s) the write changed, so the caller
 * can name what actually changed (a revocation that did not happen reports nothing).
 */
export type OutboxFor<T extends unknown[]> = (...changed: T) => readonly SideRecord[];

/** The webhook outbox: one queue per endpoint, sent in message id (creation) order. */
export interface OutboxStore {
  /**
   * Claims the oldest undelivered message of `endpoint` for `owner` until `leaseUntil` (ms),
   * only if it is due (`next_attempt_at <= now`) and no other claim holds it. Messages behind
   * it wait, so one endpoint receives them in order; one message is never claimed by two
   * instances at once.
   *
   * @returns the claimed message, or `undefined` (nothing due, or the head is claimed)
   */
  claim(
    endpoint: string,
    owner: string,
    now: number,
    leaseUntil: number,
  ): Promise<PendingDelivery | undefined>;
  /**
   * Settles `claimed` (as {@linkcode OutboxStore.claim} returned it) after `attempt`, and adds
   * the attempt to its delivery record: with `retry_at`, keeps it queued with one more attempt
   * and the claim released; else removes it from the queue and keeps its record as delivered
   * or failed. Only the claim's holder settles: false when the claim was lost meanwhile
   * (nothing written).
   */
  settle(
    claimed: PendingDelivery,
    attempt: DeliveryAttempt,
    settlement: Settlement,
  ): Promise<boolean>;
  /** Undelivered messages of `endpoint` in send order, at most `limit` (tests, operators). */
  pending(endpoint: string, limit: number): Promise<PendingDelivery[]>;
  /** Delivery records matching `query`, newest message first (then endpoint), at most `limit`. */
  deliveries(query: DeliveryQuery, limit: number): Promise<DeliveryRecord[]>;
  /**
   * Queues a delivered or failed message for `endpoint` again, due at `now`, in one atomic step
   * with `audit`; a message still pending is left as it is (nothing written, `audit` neither).
   *
   * @returns its delivery record after the call and whether it was queued now, or `undefined`
   *   when there is none
   */
  redeliver(
    endpoint: string,
    id: string,
    now: number,
    audit?: readonly AuditRecord[],
  ): Promise<Redelivery | undefined>;
}

/** The audit trail (the operator actions and security events written with their changes). */
export interface AuditStore {
  /** Writes `records` on their own (for actions whose change has no commit of its own). */
  append(records: readonly AuditRecord[]): Promise<void>;
  /** Records matching `query`, newest first, at most `limit`. */
  list(query: AuditQuery, limit: number): Promise<AuditRecord[]>;
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

/** Session families and their refresh tokens. */
export interface SessionStore {
  /** Creates a family and its first refresh token in one atomic commit. */
  create(family: SessionFamily, refresh: RefreshRecord): Promise<void>;
  /** The family with `id`, or `undefined` (also once expired). */
  getFamily(id: string): Promise<SessionFamily | undefined>;
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
   * only if the record, its family and its user are all unchanged since `snapshot`.
   *
   * @returns `rotated`, or why not (the caller re-reads and decides again)
   */
  rotate(
    snapshot: RefreshSnapshot,
    retired: RefreshRecord,
    next: RefreshRecord,
  ): Promise<RotateOutcome>;
}

/** Default most records of each kind one {@linkcode Housekeeping.sweepExpired} deletes. */
export const SWEEP_LIMIT = 1000;

/** The store's housekeeping: deleting what has ended, for every concern of the store. */
export interface Housekeeping {
  /**
   * The cleanup sweep: deletes session families whose absolute end is at or before `now`
   * (revoked or not) with their user-index entries, lowers the live-session counter for those
   * not already revoked, deletes refresh records past their own end, and whatever else of the
   * store has ended and does not expire by itself (nonces, used-ID-token markers, rate-limit
   * windows, lockout records, audit records and settled webhook deliveries past their
   * `expires_at`). Bounded: at most `limit` records of each kind per call (default
   * {@linkcode SWEEP_LIMIT}); call again for more.
   *
   * @returns how many session families were deleted
   */
  sweepExpired(now: number, limit?: number): Promise<number>;
}

/** Where the signing key ring is kept. */
export interface KeyRingStore {
  /** The ring and an opaque version for {@linkcode KeyRingStore.save}. */
  load(): Promise<{ ring: KeyRing | undefined; version: string | null }>;
  /** Saves `ring` only if the stored version is still `version`; false when it lost a race. */
  save(ring: KeyRing, version: string | null): Promise<boolean>;
}

/** Counters kept atomically with the writes they count, so stats need no scan. */
export interface StatsStore {
  /** Users per status and sessions created-minus-revoked (expired ones leave at the sweep). */
  read(): Promise<{ users: Record<string, number>; sessions: number }>;
}

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

/** Operator authentication attempts of one peer address (see `auth/lockout.ts`). */
export interface LockoutState {
  /**
   * Attempts taken in the current window and not given back: failed ones and those still
   * being evaluated. Absent in records written before attempts were taken up front.
   */
  readonly attempts?: number;
  /** Failures counted in the current window. */
  readonly failures: number;
  /** Start of the current window (ms): its first attempt. */
  readonly window_start: number;
  /** Set once the threshold was reached: no attempt is evaluated before this time (ms). */
  readonly locked_until?: number;
}

/** Per-peer attempt records of the internal API, shared by every instance on the store. */
export interface LockoutStore {
  /** The peer's record, or `undefined`. */
  get(peer: string): Promise<LockoutState | undefined>;
  /**
   * Replaces the peer's record by `change(current)` atomically: no other update of the peer,
   * on any instance, commits between the read `change` saw and the write. `change` may run
   * more than once (after a lost race); the record written is its last result. The record is
   * kept until `forgetAt(next)` (ms). `outbox(before, next)` names the messages committed with
   * the write (from its last run).
   *
   * @returns the record written
   */
  update(
    peer: string,
    change: (current: LockoutState | undefined) => LockoutState,
    forgetAt: (next: LockoutState) => number,
    outbox?: OutboxFor<[before: LockoutState | undefined, next: LockoutState]>,
  ): Promise<LockoutState>;
}

/**
 * Public rate-limit counts per client key and fixed window, summed over every instance on the
 * store. Instances count in memory and add their counts about once a second (`limits/
 * rate_limiter.ts`), so the hot path makes no round trip for it.
 */
export interface RateLimitStore {
  /**
   * Adds `counts` (client key → requests counted since this instance's last call) to the
   * shared counts of `window` atomically, and returns the shared totals of those keys, this
   * addition included. The counts may be forgotten after `forgetAt` (ms).
   */
  add(
    window: number,
    counts: ReadonlyMap<string, number>,
    forgetAt: number,
  ): Promise<Map<string, number>>;
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

/** An attempt's effect on an endpoint's run of consecutive failed attempts. */
export interface FailureRun {
  /** Consecutive failed attempts before this one was counted. */
  readonly before: number;
  /** After it: one more on a failure, 0 on a success. */
  readonly after: number;
}

/**
 * How each webhook endpoint's deliveries are going, shared by every instance on the store, so
 * all of them report an endpoint failing (metric, console, log) from the same count.
 */
export interface WebhookHealthStore {
  /**
   * Counts one attempt to `endpoint` atomically (no other instance's count is lost): a failure
   * adds one to the endpoint's run of consecutive failures, a success ends it.
   */
  record(endpoint: string, delivered: boolean): Promise<FailureRun>;
  /** Consecutive failed attempts of every endpoint with a run under way (absent: none). */
  read(): Promise<Map<string, number>>;
}

/** Everything the service stores. */
export interface Store {
  readonly users: UserStore;
  readonly sessions: SessionStore;
  readonly keyring: KeyRingStore;
  readonly stats: StatsStore;
  readonly nonces: NonceStore;
  readonly lockouts: LockoutStore;
  readonly rateLimits: RateLimitStore;
  readonly housekeeping: Housekeeping;
  readonly dpop: DpopStore;
  readonly outbox: OutboxStore;
  readonly audit: AuditStore;
  readonly webhookHealth: WebhookHealthStore;
  readonly providerTokens: ProviderTokenStore;
  /** Resolves when the store answers a read; rejects otherwise (used by `/health`). */
  ping(): Promise<void>;
}
