import type postgres from "postgres";
import type { AuditQuery, AuditRecord, AuditStore } from "./audit.ts";
import { json, type Sql } from "./pg_connection.ts";

/** Inserts the audit record `r` inside `tx`, so it commits with the change it reports. */
export async function insertAudit(
  tx: postgres.TransactionSql | Sql,
  r: AuditRecord,
): Promise<void> {
  await tx`
    insert into audit_log (id, at, actor, action, user_id, expires_at, record)
    values (${r.id}, ${r.at}, ${r.actor.id}, ${r.action}, ${r.user ?? null}, ${r.expires_at},
      ${json(tx, r)})`;
}

/**
 * {@linkcode AuditStore} on PostgreSQL: one row per record, indexed by actor, action and user
 * (each with the id, the listing's order).
 */
export class PgAuditStore implements AuditStore {
  /** @param sql the pool */
  constructor(private readonly sql: Sql) {}

  /** @inheritdoc */
  async append(records: readonly AuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.sql.begin(async (tx) => {
      for (const r of records) await insertAudit(tx, r);
    });
  }

  /** @inheritdoc */
  async list(q: AuditQuery, limit: number): Promise<AuditRecord[]> {
    const sql = this.sql;
    const rows = await sql<{ record: AuditRecord }[]>`
      select record from audit_log
      where true
        ${q.before === undefined ? sql`` : sql`and id < ${q.before}`}
        ${q.actor === undefined ? sql`` : sql`and actor = ${q.actor}`}
        ${q.action === undefined ? sql`` : sql`and action = ${q.action}`}
        ${q.user === undefined ? sql`` : sql`and user_id = ${q.user}`}
        ${q.from === undefined ? sql`` : sql`and at >= ${q.from}`}
        ${q.to === undefined ? sql`` : sql`and at < ${q.to}`}
      order by id desc limit ${limit}`;
    return rows.map((r) => r.record);
  }
}
