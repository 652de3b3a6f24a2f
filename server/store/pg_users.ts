import type { Clock } from "@org/shared";
import type { CreateResult, UserRecord, UserStore } from "./store.ts";
import { json, type Sql } from "./pg_connection.ts";

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
  async create(user: UserRecord): Promise<CreateResult> {
    // Either unique constraint (id, or provider and external_id) refuses the row.
    const rows = await this.sql`
      insert into users (id, provider, external_id, status, record)
      values (${user.id}, ${user.provider}, ${user.external_id}, ${user.status},
        ${json(this.sql, user)})
      on conflict do nothing
      returning 1`;
    return rows.length === 1 ? { ok: true } : { ok: false, reason: "conflict" };
  }

  /** @inheritdoc */
  async update(
    id: string,
    change: (user: UserRecord) => UserRecord,
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
