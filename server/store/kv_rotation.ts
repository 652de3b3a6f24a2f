/**
 * The refresh-rotation half of the KV session store, kept apart from `kv_sessions.ts` because
 * it is the hot path and is tuned for it:
 *
 * - **One read round trip** when the token was issued by this process: a token's family and
 *   user never change, so `hash → (family, user)` is remembered (bounded) when a token is
 *   issued, and the record, family and user then come back in one `getMany`. Only immutable
 *   facts are remembered, so the hint can never be stale; a miss (restart, another instance)
 *   costs one more round trip.
 * - **Group commit**: while one rotation commit is in flight, the next ones queue and go out
 *   together in one atomic commit (each with its own checks). A local KV file syncs per
 *   commit, so this is what lets rotations outrun the disk. A batch that fails a check is
 *   replayed one rotation per commit, so each rotation still succeeds or fails on its own
 *   checks alone.
 *
 * @module
 */
import type { Clock } from "@org/shared";
import type { RefreshRecord, RefreshSnapshot, SessionFamily, UserRecord } from "./store.ts";
import { expireIn, K } from "./kv_keys.ts";

/** Most token hints remembered; the oldest are forgotten first (a miss is only slower). */
const MAX_HINTS = 100_000;
/** Most rotations per group commit: 3 checks each stays within Deno KV's 100 checks. */
const MAX_BATCH = 32;

interface Pending {
  readonly snapshot: RefreshSnapshot;
  readonly retired: RefreshRecord;
  readonly next: RefreshRecord;
  readonly resolve: (ok: boolean) => void;
  readonly reject: (err: unknown) => void;
}

/** Reads and rotations of refresh tokens on one Deno KV. */
export class KvRotation {
  #hints = new Map<string, { family: string; user: string }>();
  #queue: Pending[] = [];
  #committing = false;

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
      versions: { record: recordEntry.versionstamp, family: familyEntry?.versionstamp ?? null },
    };
  }

  /**
   * Retires the snapshot's record and stores `next`, checked against the versions read: a
   * concurrent rotation or revocation makes it fail instead of forking the family or
   * resurrecting a revoked one. Shares a commit with rotations queued at the same time.
   *
   * @param snapshot what the caller read
   * @param retired the snapshot's record with `retired_at` and `successor` set
   * @param next the successor's record
   * @returns false when the record or family changed since the read
   */
  rotate(snapshot: RefreshSnapshot, retired: RefreshRecord, next: RefreshRecord): Promise<boolean> {
    const { promise, resolve, reject } = Promise.withResolvers<boolean>();
    this.#queue.push({ snapshot, retired, next, resolve, reject });
    if (!this.#committing) void this.#drain();
    return promise;
  }

  async #drain(): Promise<void> {
    this.#committing = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MAX_BATCH);
        await this.#commitBatch(batch);
      }
    } finally {
      this.#committing = false;
    }
  }

  async #commitBatch(batch: Pending[]): Promise<void> {
    // Two rotations of one token in one batch would both pass the same check: keep the
    // first; the others lost the race (they re-read and take the retry path).
    const seen = new Set<string>();
    const unique: Pending[] = [];
    for (const p of batch) {
      if (seen.has(p.retired.hash)) p.resolve(false);
      else {
        seen.add(p.retired.hash);
        unique.push(p);
      }
    }
    try {
      if (unique.length > 1 && await this.#commit(unique)) {
        for (const p of unique) this.#settled(p, true);
        return;
      }
      // Alone, or a batch that failed some check: each rotation on its own checks.
      await Promise.all(unique.map(async (p) => this.#settled(p, await this.#commit([p]))));
    } catch (err) {
      for (const p of unique) p.reject(err);
    }
  }

  #settled(p: Pending, ok: boolean): void {
    if (ok) {
      this.#hints.delete(p.retired.hash);
      this.remember(p.next);
    }
    p.resolve(ok);
  }

  async #commit(items: readonly Pending[]): Promise<boolean> {
    const now = this.clock.now();
    const op = this.kv.atomic();
    for (const { snapshot, retired, next } of items) {
      op.check({ key: K.refresh(retired.hash), versionstamp: snapshot.versions.record })
        .check({ key: K.family(retired.family_id), versionstamp: snapshot.versions.family })
        .check({ key: K.refresh(next.hash), versionstamp: null })
        // The retired record lives as long as the family: presenting it later must still be
        // recognised as reuse, not shrugged off as an unknown token.
        .set(K.refresh(retired.hash), retired, { expireIn: expireIn(retired.expires_at, now) })
        .set(K.refresh(next.hash), next, { expireIn: expireIn(next.expires_at, now) });
    }
    return (await op.commit()).ok;
  }
}
