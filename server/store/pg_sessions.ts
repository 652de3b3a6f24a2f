import type { Clock } from "@org/shared";
import type postgres from "postgres";
import type {
  RefreshRecord,
  RefreshSnapshot,
  RotateOutcome,
  SessionFamily,
  SessionStore,
} from "./sessions.ts";
import type { OutboxFor } from "./side_records.ts";
import type { ProofMark } from "./dpop.ts";
import { json, type Sql } from "./pg_connection.ts";
import { PgRotation } from "./pg_rotation.ts";
import { insertOutbox } from "./pg_outbox.ts";

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
    this.#rotation = new PgRotation(sql, clock);
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
  async getFamilies(ids: readonly string[]): Promise<SessionFamily[]> {
    if (ids.length === 0) return [];
    const rows = await this.sql<{ record: SessionFamily }[]>`
      select record from session_families
      where id = any(${[...ids]}) and expires_at > ${this.clock.now()}`;
    return rows.map((r) => r.record);
  }

  /** @inheritdoc */
  async getRefresh(hash: string): Promise<RefreshRecord | undefined> {
    const rows = await this.sql<{ record: RefreshRecord }[]>`
      select record from refresh_tokens where hash = ${hash}`;
    return rows[0]?.record;
  }

  /** @inheritdoc */
  async revokeFamily(
    id: string,
    at: number,
    outbox?: OutboxFor<[SessionFamily]>,
  ): Promise<boolean> {
    return await this.#revoke("id", id, at, outbox) === 1;
  }

  /** @inheritdoc */
  async familiesOfUser(userId: string): Promise<string[]> {
    const rows = await this.sql<{ id: string }[]>`
      select id from session_families where user_id = ${userId} order by id`;
    return rows.map((r) => r.id);
  }

  /** @inheritdoc */
  async markUsed(family: Pick<SessionFamily, "id" | "expires_at">, at: number): Promise<void> {
    // Not the row's version: a rotation checks that, and a use must not fail one.
    await this.sql`
      update session_families set last_used_at = greatest(coalesce(last_used_at, 0), ${at})
      where id = ${family.id}`;
  }

  /** @inheritdoc */
  async lastUsed(ids: readonly string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows = await this.sql<{ id: string; last_used_at: string }[]>`
      select id, last_used_at from session_families
      where id = any(${[...ids]}::text[]) and last_used_at is not null`;
    return new Map(rows.map((r) => [r.id, Number(r.last_used_at)]));
  }

  /** @inheritdoc */
  revokeAllOfUser(
    userId: string,
    at: number,
    outbox?: OutboxFor<[SessionFamily]>,
  ): Promise<number> {
    return this.#revoke("user_id", userId, at, outbox);
  }

  /**
   * Revokes the live families whose `column` is `value` in one statement, locking them in id
   * order (the order rotations take their share locks in); how many.
   */
  async #revoke(
    column: "id" | "user_id",
    value: string,
    at: number,
    outbox: OutboxFor<[SessionFamily]> | undefined,
  ): Promise<number> {
    const revoke = (q: Sql | postgres.TransactionSql) =>
      q<{ record: SessionFamily }[]>`
        update session_families
        set revoked = true, version = version + 1,
          record = record || jsonb_build_object('revoked', true, 'revoked_at', ${at}::bigint)
        where id in (
          select id from session_families
          where ${q(column)} = ${value} and not revoked and expires_at > ${this.clock.now()}
          order by id for update)
        returning record`;
    // A transaction only when messages commit with the revocation.
    if (outbox === undefined) return (await revoke(this.sql)).length;
    return await this.sql.begin(async (tx) => {
      const rows = await revoke(tx);
      for (const r of rows) await insertOutbox(tx, outbox(r.record));
      return rows.length;
    });
  }

  /** @inheritdoc Always a read: this store remembers nothing. */
  readForRefresh(hash: string): Promise<RefreshSnapshot | undefined> {
    return this.#rotation.read(hash);
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
