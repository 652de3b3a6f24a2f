import type { Clock } from "@org/shared";
import type postgres from "postgres";
import type { OutboxMessage } from "./outbox.ts";
import type { OutboxFor } from "./side_records.ts";
import type { CreateResult, UserRecord, UserStore } from "./users.ts";
import { json, type Sql } from "./pg_connection.ts";
import { insertOutbox } from "./pg_outbox.ts";

/** {@linkcode UserStore} on PostgreSQL: one row per user, unique on (provider, external_id). */
export class PgUserStore implements UserStore {
  /** @param sql the pool @param clock the time source of `updated_at` */
  constructor(private readonly sql: Sql, private readonly clock: Clock) {}

  /** @inheritdoc */
  async get(id: string): Promise<UserRecord | undefined> {
    const rows = await this.sql<{ record: UserRecord }[]>`
      select record from users where id = ${id}`;
    return rows[0]?.record;
  }

  /** @inheritdoc */
  async findByExternalId(provider: string, externalId: string): Promise<UserRecord | undefined> {
    const rows = await this.sql<{ record: UserRecord }[]>`
      select record from users where provider = ${provider} and external_id = ${externalId}`;
    return rows[0]?.record;
  }

  /** @inheritdoc */
  async create(user: UserRecord, outbox?: readonly OutboxMessage[]): Promise<CreateResult> {
    // Either unique constraint (id, or provider and external_id) refuses the row.
    const insert = (q: Sql | postgres.TransactionSql) =>
      q`
        insert into users (id, provider, external_id, status, record)
        values (${user.id}, ${user.provider}, ${user.external_id}, ${user.status},
          ${json(q, user)})
        on conflict do nothing
        returning 1`;
    // A transaction only when there is a message to commit with the user.
    const created = outbox === undefined || outbox.length === 0
      ? (await insert(this.sql)).length === 1
      : await this.sql.begin(async (tx) => {
        const ok = (await insert(tx)).length === 1;
        if (ok) await insertOutbox(tx, outbox);
        return ok;
      });
    return created ? { ok: true } : { ok: false, reason: "conflict" };
  }

  /** @inheritdoc */
  async update(
    id: string,
    change: (user: UserRecord) => UserRecord,
    outbox?: OutboxFor<[before: UserRecord, after: UserRecord]>,
  ): Promise<UserRecord | undefined> {
    return await this.sql.begin(async (tx) => {
      // The row lock orders concurrent updates; the version bump fails any rotation that
      // checked the user before this change.
      const rows = await tx<{ record: UserRecord }[]>`
        select record from users where id = ${id} for update`;
      const current = rows[0]?.record;
      if (current === undefined) return undefined;
      const next: UserRecord = { ...change(current), id, updated_at: this.clock.now() };
      await tx`
        update users set record = ${json(tx, next)}, status = ${next.status},
          version = version + 1
        where id = ${id}`;
      await insertOutbox(tx, outbox?.(current, next));
      return next;
    });
  }

  /** @inheritdoc */
  async list(cursor: string | undefined, limit: number): Promise<UserRecord[]> {
    const rows = cursor === undefined
      ? await this.sql<{ record: UserRecord }[]>`
          select record from users order by id limit ${limit}`
      : await this.sql<{ record: UserRecord }[]>`
          select record from users where id > ${cursor} order by id limit ${limit}`;
    return rows.map((r) => r.record);
  }
}
