import type { Clock } from "@org/shared";
import type {
  RefreshRecord,
  RefreshSnapshot,
  RotateOutcome,
  SessionFamily,
  SessionStore,
} from "./store.ts";
import { json, type Sql } from "./pg_connection.ts";
import { SWEEP_LIMIT } from "./kv_sessions.ts";
import { PgRotation } from "./pg_rotation.ts";

/**
 * {@linkcode SessionStore} on PostgreSQL. Every read-modify-write is one statement or one
 * transaction whose outcome the database decides: a rotation is a conditional update of the
 * presented token's row (its version) under share locks on its family and user rows, so of
 * any number of concurrent rotations on any number of instances exactly one commits, and a
 * revocation or user change either waits for it or makes it fail (see `pg_rotation.ts`).
 */
export class PgSessionStore implements SessionStore {
  readonly #rotation: PgRotation;

  /** @param sql the pool @param clock the time source deciding expiry */
  constructor(private readonly sql: Sql, private readonly clock: Clock) {
    this.#rotation = new PgRotation(sql);
  }

  /** @inheritdoc */
  async create(family: SessionFamily, refresh: RefreshRecord): Promise<void> {
    // One statement, so one transaction: both rows or neither.
    await this.sql`
      with f as (
        insert into session_families (id, user_id, expires_at, revoked, record)
        values (${family.id}, ${family.user_id}, ${family.expires_at}, ${family.revoked},
          ${json(this.sql, family)})
        returning id
      )
      insert into refresh_tokens (hash, family_id, user_id, expires_at, record)
      select ${refresh.hash}, f.id, ${refresh.user_id}, ${refresh.expires_at},
        ${json(this.sql, refresh)}
      from f`;
  }

  /** @inheritdoc */
  async getFamily(id: string): Promise<SessionFamily | undefined> {
    const rows = await this.sql<{ record: SessionFamily }[]>`
      select record from session_families where id = ${id} and expires_at > ${this.clock.now()}`;
    return rows[0]?.record;
  }

  /** @inheritdoc */
  async getRefresh(hash: string): Promise<RefreshRecord | undefined> {
    const rows = await this.sql<{ record: RefreshRecord }[]>`
      select record from refresh_tokens where hash = ${hash}`;
    return rows[0]?.record;
  }

  /** @inheritdoc */
  async revokeFamily(id: string, at: number): Promise<boolean> {
    return await this.#revoke("id", id, at) === 1;
  }

  /** @inheritdoc */
  async familiesOfUser(userId: string): Promise<string[]> {
    const rows = await this.sql<{ id: string }[]>`
      select id from session_families where user_id = ${userId} order by id`;
    return rows.map((r) => r.id);
  }

  /** @inheritdoc */
  revokeAllOfUser(userId: string, at: number): Promise<number> {
    return this.#revoke("user_id", userId, at);
  }

  /**
   * Revokes the live families whose `column` is `value` in one statement, locking them in id
   * order (the order rotations take their share locks in); how many.
   */
  async #revoke(column: "id" | "user_id", value: string, at: number): Promise<number> {
    const rows = await this.sql`
      update session_families
      set revoked = true, version = version + 1,
        record = record || jsonb_build_object('revoked', true, 'revoked_at', ${at}::bigint)
      where id in (
        select id from session_families
        where ${this.sql(column)} = ${value} and not revoked and expires_at > ${this.clock.now()}
        order by id for update)
      returning 1`;
    return rows.length;
  }

  /** @inheritdoc Always a read (this store remembers nothing), so `fresh` changes nothing. */
  readForRefresh(hash: string): Promise<RefreshSnapshot | undefined> {
    return this.#rotation.read(hash);
  }

  /** @inheritdoc */
  rotate(
    snapshot: RefreshSnapshot,
    retired: RefreshRecord,
    next: RefreshRecord,
  ): Promise<RotateOutcome> {
    return this.#rotation.rotate(snapshot, retired, next);
  }

  /**
   * @inheritdoc
   *
   * Nothing in PostgreSQL expires by itself, so this sweep also deletes expired nonces,
   * used-ID-token markers, used DPoP proof marks, forgotten lockout records and past rate-limit windows (at most
   * `limit` of each). Rows are
   * claimed with `skip locked`: several instances sweeping at once share the work.
   */
  async sweepExpired(now: number, limit = SWEEP_LIMIT): Promise<number> {
    const families = await this.sql`
      delete from session_families where id in (
        select id from session_families where expires_at <= ${now}
        order by expires_at limit ${limit} for update skip locked)
      returning 1`;
    await this.sql`
      delete from refresh_tokens where hash in (
        select hash from refresh_tokens where expires_at <= ${now}
        limit ${limit} for update skip locked)`;
    await this.sql`
      delete from nonces where hash in (
        select hash from nonces where expires_at <= ${now} limit ${limit} for update skip locked)`;
    await this.sql`
      delete from used_id_tokens where (issuer, id) in (
        select issuer, id from used_id_tokens where expires_at <= ${now}
        limit ${limit} for update skip locked)`;
    await this.sql`
      delete from dpop_proofs where id in (
        select id from dpop_proofs where expires_at <= ${now} limit ${limit} for update skip locked)`;
    await this.sql`
      delete from rate_limits where (key, window_start) in (
        select key, window_start from rate_limits where forget_at <= ${now}
        limit ${limit} for update skip locked)`;
    await this.sql`
      delete from operator_lockouts where peer in (
        select peer from operator_lockouts where forget_at <= ${now}
        limit ${limit} for update skip locked)`;
    return families.length;
  }
}
