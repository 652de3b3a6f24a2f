import type { Clock } from "@org/shared";
import type {
  RefreshRecord,
  RefreshSnapshot,
  RotateOutcome,
  SessionFamily,
  SessionStore,
} from "./sessions.ts";
import type { OutboxFor } from "./side_records.ts";
import type { ProofMark } from "./dpop.ts";
import { expireIn, K, MINUS_ONE, ONE } from "./kv_keys.ts";
import { KvRotation } from "./kv_rotation.ts";
import { queueOutbox } from "./kv_outbox.ts";
import { getManyChunked } from "./kv_chunks.ts";

/**
 * How long a family record and its user-index entry stay stored past the session's end.
 *
 * Why: the live-session counter only goes down when the cleanup sweep (`kv_housekeeping.ts`)
 * deletes a family it sees expired (or when it is revoked). If KV's own `expireIn` removed the family exactly at
 * its end, the sweep would usually never see it and `sessions.live` would only ever grow.
 * Keeping the record a margin longer (the sweep runs hourly) leaves the sweep ample time;
 * `getFamily` already treats a family past its end as gone, so nothing else notices. KV still
 * drops it eventually if no sweep ever runs.
 */
export const FAMILY_RETENTION_MS = 7 * 86_400_000;

/**
 * The KV `expireIn` of a family record and its user-index entry:
 * {@linkcode FAMILY_RETENTION_MS} after the session's end.
 *
 * @param family the family
 * @param now the current time (ms)
 * @returns milliseconds from `now`
 */
export function familyExpireIn(family: Pick<SessionFamily, "expires_at">, now: number): number {
  return expireIn(family.expires_at + FAMILY_RETENTION_MS, now);
}

/**
 * {@linkcode SessionStore} on Deno KV. Refresh records carry `expireIn` exactly up to their
 * end; a family and its index entry under the user are kept {@linkcode FAMILY_RETENTION_MS}
 * longer, so the sweep sees them expire and keeps the live-session counter exact.
 */
export class KvSessionStore implements SessionStore {
  readonly #rotation: KvRotation;

  /** @param kv an opened Deno KV @param clock the time source for `expireIn` */
  constructor(private readonly kv: Deno.Kv, private readonly clock: Clock) {
    this.#rotation = new KvRotation(kv, clock);
  }

  /** @inheritdoc */
  async create(family: SessionFamily, refresh: RefreshRecord): Promise<void> {
    const ttl = { expireIn: familyExpireIn(family, this.clock.now()) };
    const res = await this.kv.atomic()
      .check({ key: K.family(family.id), versionstamp: null })
      .check({ key: K.refresh(refresh.hash), versionstamp: null })
      .set(K.family(family.id), family, ttl)
      .set(K.familyOfUser(family.user_id, family.id), family.expires_at, ttl)
      .set(K.refresh(refresh.hash), refresh, {
        expireIn: expireIn(refresh.expires_at, this.clock.now()),
      })
      .sum(K.liveSessions, ONE.value)
      .commit();
    // Ids are ULIDs and hashes are of 256 random bits: a clash means a broken random source.
    if (!res.ok) throw new Error(`session ${family.id} or its refresh token already exists`);
    this.#rotation.remember(refresh);
  }

  /** @inheritdoc */
  async getFamily(id: string): Promise<SessionFamily | undefined> {
    const f = (await this.kv.get<SessionFamily>(K.family(id))).value;
    // expireIn deletes lazily; never hand out a family past its end.
    return f && f.expires_at > this.clock.now() ? f : undefined;
  }

  /** @inheritdoc */
  async getFamilies(ids: readonly string[]): Promise<SessionFamily[]> {
    const entries = await getManyChunked<SessionFamily>(this.kv, ids.map((id) => K.family(id)));
    const now = this.clock.now();
    return entries.flatMap((e) => e.value && e.value.expires_at > now ? [e.value] : []);
  }

  /** @inheritdoc */
  async getRefresh(hash: string): Promise<RefreshRecord | undefined> {
    return (await this.kv.get<RefreshRecord>(K.refresh(hash))).value ?? undefined;
  }

  /** @inheritdoc */
  async revokeFamily(
    id: string,
    at: number,
    outbox?: OutboxFor<[SessionFamily]>,
  ): Promise<boolean> {
    for (;;) {
      const entry = await this.kv.get<SessionFamily>(K.family(id));
      if (entry.value === null || entry.value.revoked) return false;
      // Already over: nothing to revoke; the sweep takes it out of the live count.
      if (entry.value.expires_at <= this.clock.now()) return false;
      const next: SessionFamily = { ...entry.value, revoked: true, revoked_at: at };
      const res = await queueOutbox(this.kv.atomic(), outbox?.(next)).check(entry)
        .set(K.family(id), next, { expireIn: familyExpireIn(next, this.clock.now()) })
        .sum(K.liveSessions, MINUS_ONE.value)
        .commit();
      if (res.ok) return true;
    }
  }

  /** @inheritdoc */
  async familiesOfUser(userId: string): Promise<string[]> {
    const ids: string[] = [];
    for await (const e of this.kv.list({ prefix: K.familiesOfUserPrefix(userId) })) {
      ids.push(String(e.key[e.key.length - 1]));
    }
    return ids;
  }

  /** @inheritdoc */
  async markUsed(family: Pick<SessionFamily, "id" | "expires_at">, at: number): Promise<void> {
    await this.kv.set(K.familyUsed(family.id), at, {
      expireIn: familyExpireIn(family, this.clock.now()),
    });
  }

  /** @inheritdoc */
  async lastUsed(ids: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    // Each family's own mark: no consistency across chunks is needed.
    const entries = await getManyChunked<number>(this.kv, ids.map((id) => K.familyUsed(id)));
    entries.forEach((e, j) => {
      if (typeof e.value === "number") out.set(ids[j]!, e.value);
    });
    return out;
  }

  /** @inheritdoc */
  async revokeAllOfUser(
    userId: string,
    at: number,
    outbox?: OutboxFor<[SessionFamily]>,
  ): Promise<number> {
    let n = 0;
    for (const id of await this.familiesOfUser(userId)) {
      if (await this.revokeFamily(id, at, outbox)) n++;
    }
    return n;
  }

  /**
   * What this process's own last rotation of the token's family left, when it remembers
   * (no I/O: the rotation commit checks every version, see `kv_rotation.ts`); else a read.
   */
  readForRefresh(hash: string): Promise<RefreshSnapshot | undefined> {
    const remembered = this.#rotation.remembered(hash);
    return remembered ? Promise.resolve(remembered) : this.#rotation.read(hash);
  }

  /** @inheritdoc */
  rotate(
    snapshot: RefreshSnapshot,
    retired: RefreshRecord,
    next: RefreshRecord,
    mark?: ProofMark,
  ): Promise<RotateOutcome> {
    return this.#rotation.rotate(snapshot, retired, next, mark);
  }
}
