/**
 * The refresh-rotation half of the KV session store, kept apart from `kv_sessions.ts` because
 * it is the hot path and is tuned for it:
 *
 * - **No read for a token this process rotated last** (the common case: a client refreshing
 *   through the instance that gave it its token). A successful rotation knows exactly what it
 *   left in the store: the successor's record and versionstamp (the commit's), and the family
 *   and user it checked, with their versions. That snapshot is remembered (bounded); the next
 *   refresh of the successor decides on it and commits with checks on the record, family AND
 *   user versions. Any change since (a revocation, a suspension or claims change through
 *   `store.users.update`, a rotation by another instance, expiry) fails the check, and the
 *   request re-reads and decides again, so an answer is never based on stale state: the
 *   memory saves a read, it never replaces one.
 * - **One read round trip** otherwise, when the token was issued by this process: a token's
 *   family and user never change, so `hash → (family, user)` is remembered (bounded) and the
 *   record, family and user then come back in one `getMany`. A miss (restart, another
 *   instance) costs one more round trip.
 * - **Group commit**: while one rotation commit is in flight, the next ones queue and go out
 *   together in one atomic commit (each with its own checks); a full batch waiting goes out at
 *   once as a second commit in flight.
 * - **A DPoP proof's mark in the same commit**: a refresh with a proof commits the proof's
 *   single-use mark with its rotation (checked absent), so a replayed proof and a rotation
 *   cannot both succeed, and no crash can leave one without the other. A local KV file syncs per commit, so this is what lets
 *   rotations outrun the disk. A batch that fails a check is
 *   replayed one rotation per commit, so each rotation still succeeds or fails on its own
 *   checks alone.
 *
 * @module
 */
import type { Clock } from "@org/shared";
import type { ProofMark } from "./dpop.ts";
import type { RefreshRecord, RefreshSnapshot, RotateOutcome, SessionFamily } from "./sessions.ts";
import type { UserRecord } from "./users.ts";
import { expireIn, K } from "./kv_keys.ts";
import { type PendingRotation, RotationQueue, sharesMark } from "./rotation_queue.ts";
import { DPOP_KEYS, type ProofMarkRecord } from "./kv_dpop.ts";

/** Most token hints remembered; the oldest are forgotten first (a miss is only slower). */
const MAX_HINTS = 100_000;
/**
 * Most snapshots remembered (each holds a record, a family and a user, so this bounds memory
 * at a few MB for ordinary user records); the oldest are forgotten first (a miss is one read).
 */
const MAX_SNAPSHOTS = 10_000;
/**
 * Most rotations per group commit: 4 checks each, and a fifth for a DPoP proof's mark, stays
 * within Deno KV's 100 checks.
 */
const MAX_BATCH = 20;
/**
 * Most group commits in flight. A second one starts only when a full batch is waiting, so the
 * KV thread goes on to it without waiting for the server thread to collect the first one's
 * answer (measured with a KV file: 5,000-5,700 → 5,400-6,200 refreshes/s), while at lighter
 * load batches stay as large as one-at-a-time makes them.
 */
const MAX_IN_FLIGHT = 2;

/** Reads and rotations of refresh tokens on one Deno KV. */
export class KvRotation {
  #hints = new Map<string, { family: string; user: string }>();
  #snapshots = new Map<string, RefreshSnapshot>();
  /** Every snapshot handed out from memory: a failed rotation on one of them is `unproven`. */
  #fromMemory = new WeakSet<RefreshSnapshot>();
  /** Tokens whose rotation is queued or in flight, to when it settles. */
  #queue = new RotationQueue((batch) => this.#commitBatch(batch), MAX_BATCH, MAX_IN_FLIGHT);

  /** @param kv an opened Deno KV @param clock time source for `expireIn` */
  constructor(private readonly kv: Deno.Kv, private readonly clock: Clock) {}

  /** Remembers the (immutable) family and user of a token this process just issued. */
  remember(record: RefreshRecord): void {
    if (this.#hints.size >= MAX_HINTS) {
      this.#hints.delete(this.#hints.keys().next().value!);
    }
    this.#hints.set(record.hash, { family: record.family_id, user: record.user_id });
  }

  /**
   * The snapshot this process's last rotation left for `hash` (a live token), if remembered.
   * Unverified: see {@linkcode KvRotation.rotate}.
   */
  remembered(hash: string): RefreshSnapshot | undefined {
    return this.#snapshots.get(hash);
  }

  /**
   * Reads a refresh record by hash with its family, its user and (for a retired record) its
   * successor.
   *
   * @param hash base64url SHA-256 of the presented token
   * @returns the snapshot, or `undefined` when no record has that hash
   */
  async read(hash: string): Promise<RefreshSnapshot | undefined> {
    const hint = this.#hints.get(hash);
    let recordEntry: Deno.KvEntryMaybe<RefreshRecord>;
    let familyEntry: Deno.KvEntryMaybe<SessionFamily> | undefined;
    let userEntry: Deno.KvEntryMaybe<UserRecord> | undefined;
    if (hint) {
      const got = await this.kv.getMany<unknown[]>([
        K.refresh(hash),
        K.family(hint.family),
        K.user(hint.user),
      ]);
      recordEntry = got[0] as Deno.KvEntryMaybe<RefreshRecord>;
      familyEntry = got[1] as Deno.KvEntryMaybe<SessionFamily>;
      userEntry = got[2] as Deno.KvEntryMaybe<UserRecord>;
    } else {
      recordEntry = await this.kv.get<RefreshRecord>(K.refresh(hash));
    }
    const record = recordEntry.value;
    if (record === null || recordEntry.versionstamp === null) return undefined;
    let successorEntry: Deno.KvEntryMaybe<RefreshRecord> | undefined;
    if (!hint) {
      const keys = [K.family(record.family_id), K.user(record.user_id)];
      if (record.successor) keys.push(K.refresh(record.successor.hash));
      const got = await this.kv.getMany<unknown[]>(keys);
      familyEntry = got[0] as Deno.KvEntryMaybe<SessionFamily>;
      userEntry = got[1] as Deno.KvEntryMaybe<UserRecord>;
      successorEntry = got[2] as Deno.KvEntryMaybe<RefreshRecord> | undefined;
      if (record.retired_at === undefined) this.remember(record);
    } else if (record.successor) {
      // A retired token presented again: a retry or a replay, never the hot path.
      successorEntry = await this.kv.get<RefreshRecord>(K.refresh(record.successor.hash));
    }
    const successor = successorEntry?.value ?? null;
    return {
      record,
      family: familyEntry?.value ?? undefined,
      user: userEntry?.value ?? undefined,
      successorLive: record.successor
        ? successor !== null && successor.retired_at === undefined
        : undefined,
      versions: {
        record: recordEntry.versionstamp,
        family: familyEntry?.versionstamp ?? null,
        user: userEntry?.versionstamp ?? null,
      },
    };
  }

  /**
   * Retires the snapshot's record and stores `next`, checked against the snapshot's versions
   * of the record, its family and its user: a concurrent rotation, revocation or user change
   * makes it fail instead of forking the family, resurrecting a revoked one or serving a
   * suspended user. Shares a commit with rotations queued at the same time.
   *
   * @param snapshot what the caller decided on
   * @param retired the snapshot's record with `retired_at` and `successor` set
   * @param next the successor's record
   * @param mark the DPoP proof's mark, committed with the rotation and checked absent
   * @returns `rotated`; `raced` when a rotation of the same token by this process is already
   *   under way; `replayed` when the proof's mark exists (nothing committed); `changed` when
   *   the record, family or user changed since the snapshot was read; `unproven` when a
   *   snapshot from {@linkcode KvRotation.remembered} did not hold
   */
  rotate(
    snapshot: RefreshSnapshot,
    retired: RefreshRecord,
    next: RefreshRecord,
    mark?: ProofMark,
  ): Promise<RotateOutcome> {
    return this.#queue.rotate(snapshot, retired, next, mark);
  }

  async #commitBatch(batch: PendingRotation[]): Promise<void> {
    try {
      if (batch.length > 1 && !sharesMark(batch)) {
        const versionstamp = await this.#commit(batch);
        if (versionstamp !== undefined) {
          for (const p of batch) this.#settled(p, versionstamp);
          return;
        }
      }
      // Alone, or a batch that failed some check: each rotation on its own checks.
      await Promise.all(batch.map(async (p) => {
        const versionstamp = await this.#commit([p]);
        if (versionstamp === undefined && p.mark !== undefined && await this.#markHeld(p.mark)) {
          this.#forget(p);
          return p.resolve("replayed");
        }
        this.#settled(p, versionstamp);
      }));
    } catch (err) {
      for (const p of batch) {
        this.#forget(p);
        p.reject(err);
      }
    }
  }

  #settled(p: PendingRotation, versionstamp: string | undefined): void {
    this.#forget(p);
    if (versionstamp === undefined) {
      return p.resolve(this.#fromMemory.has(p.snapshot) ? "unproven" : "changed");
    }
    this.#hints.delete(p.retired.hash);
    this.remember(p.next);
    const { snapshot } = p;
    // Exactly what the commit left: the new record at the commit's version, and the family
    // and user it checked (unchanged by it, so still at the versions it checked).
    const left: RefreshSnapshot = {
      record: p.next,
      family: snapshot.family,
      user: snapshot.user,
      successorLive: undefined,
      versions: {
        record: versionstamp,
        family: snapshot.versions.family,
        user: snapshot.versions.user,
      },
    };
    this.#fromMemory.add(left);
    this.#snapshots.set(p.next.hash, left);
    if (this.#snapshots.size > MAX_SNAPSHOTS) {
      this.#snapshots.delete(this.#snapshots.keys().next().value!);
    }
    p.resolve("rotated");
  }

  /**
   * Whether a rotation failed for its proof's mark: true when an unexpired mark exists. A mark
   * past its end that KV has not yet deleted is deleted here (the caller re-reads and tries
   * again, and then commits its own mark).
   */
  async #markHeld(mark: ProofMark): Promise<boolean> {
    const entry = await this.kv.get<ProofMarkRecord>(DPOP_KEYS.proof(mark.id));
    if (entry.value === null) return false;
    if (entry.value.expires_at > this.clock.now()) return true;
    await this.kv.atomic().check(entry).delete(entry.key).commit();
    return false;
  }

  /** Whatever happened, the snapshot decided on is no longer a good guess. */
  #forget(p: PendingRotation): void {
    this.#snapshots.delete(p.retired.hash);
  }

  /** One atomic commit of `items`; its versionstamp, or `undefined` when a check failed. */
  async #commit(items: readonly PendingRotation[]): Promise<string | undefined> {
    const now = this.clock.now();
    const op = this.kv.atomic();
    for (const { snapshot, retired, next, mark } of items) {
      if (mark !== undefined) {
        const key = DPOP_KEYS.proof(mark.id);
        op.check({ key, versionstamp: null }).set(
          key,
          { expires_at: mark.expiresAt } satisfies ProofMarkRecord,
          { expireIn: expireIn(mark.expiresAt, now) },
        );
      }
      op.check({ key: K.refresh(retired.hash), versionstamp: snapshot.versions.record })
        .check({ key: K.family(retired.family_id), versionstamp: snapshot.versions.family })
        .check({ key: K.user(retired.user_id), versionstamp: snapshot.versions.user })
        .check({ key: K.refresh(next.hash), versionstamp: null })
        // The retired record lives as long as the family: presenting it later must still be
        // recognised as reuse, not shrugged off as an unknown token.
        .set(K.refresh(retired.hash), retired, { expireIn: expireIn(retired.expires_at, now) })
        .set(K.refresh(next.hash), next, { expireIn: expireIn(next.expires_at, now) });
    }
    const res = await op.commit();
    return res.ok ? res.versionstamp : undefined;
  }
}
