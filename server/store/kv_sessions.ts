import type { Clock } from "@org/shared";
import type {
  RefreshRecord,
  RefreshSnapshot,
  RotateOutcome,
  SessionFamily,
  SessionStore,
} from "./store.ts";
import { expireIn, K, MINUS_ONE, ONE } from "./kv_keys.ts";
import { KvRotation } from "./kv_rotation.ts";

/**
 * {@linkcode SessionStore} on Deno KV. A family, its index entry under the user and its
 * refresh tokens all carry `expireIn` up to the family's absolute end.
 */
export class KvSessionStore implements SessionStore {
  readonly #rotation: KvRotation;

  /** @param kv an opened Deno KV @param clock the time source for `expireIn` */
  constructor(private readonly kv: Deno.Kv, private readonly clock: Clock) {
    this.#rotation = new KvRotation(kv, clock);
  }

  /** @inheritdoc */
  async create(family: SessionFamily, refresh: RefreshRecord): Promise<void> {
    const ttl = { expireIn: expireIn(family.expires_at, this.clock.now()) };
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
  async getRefresh(hash: string): Promise<RefreshRecord | undefined> {
    return (await this.kv.get<RefreshRecord>(K.refresh(hash))).value ?? undefined;
  }

  /** @inheritdoc */
  async revokeFamily(id: string, at: number): Promise<boolean> {
    for (;;) {
      const entry = await this.kv.get<SessionFamily>(K.family(id));
      if (entry.value === null || entry.value.revoked) return false;
      const next: SessionFamily = { ...entry.value, revoked: true, revoked_at: at };
      const res = await this.kv.atomic().check(entry)
        .set(K.family(id), next, { expireIn: expireIn(next.expires_at, this.clock.now()) })
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
  async revokeAllOfUser(userId: string, at: number): Promise<number> {
    let n = 0;
    for (const id of await this.familiesOfUser(userId)) {
      if (await this.revokeFamily(id, at)) n++;
    }
    return n;
  }

  /** @inheritdoc */
  readForRefresh(hash: string): Promise<RefreshSnapshot | undefined> {
    return this.#rotation.read(hash);
  }

  /** @inheritdoc */
  rememberedForRefresh(hash: string): RefreshSnapshot | undefined {
    return this.#rotation.remembered(hash);
  }

  /** @inheritdoc */
  rotate(
    snapshot: RefreshSnapshot,
    retired: RefreshRecord,
    next: RefreshRecord,
  ): Promise<RotateOutcome> {
    return this.#rotation.rotate(snapshot, retired, next);
  }
}
