import type postgres from "postgres";
import type { AuditRecord } from "./audit.ts";
import type {
  DeliveryAttempt,
  DeliveryQuery,
  DeliveryRecord,
  OutboxStore,
  PendingDelivery,
  Redelivery,
  Settlement,
} from "./outbox.ts";
import type { SideRecord } from "./side_records.ts";
import { isAuditRecord } from "./side_records.ts";
import { json, type Sql } from "./pg_connection.ts";
import { insertAudit } from "./pg_audit.ts";
import { queued, requeued, settledRecord } from "./delivery_records.ts";

/**
 * Inserts `records` inside the transaction `tx`, so they commit with the change it makes (or
 * not at all): each webhook message to its endpoint's queue, due at once with no attempt made,
 * with its delivery record; each audit record to the trail.
 */
export async function insertOutbox(
  tx: postgres.TransactionSql,
  records: readonly SideRecord[] | undefined,
): Promise<void> {
  for (const r of records ?? []) {
    if (isAuditRecord(r)) {
      await insertAudit(tx, r);
      continue;
    }
    const [delivery, pending] = queued(r);
    await tx`
      insert into webhook_outbox (endpoint, id, record)
      values (${r.endpoint}, ${r.id}, ${json(tx, pending)})`;
    await putDelivery(tx, delivery);
  }
}

/** Writes the delivery record `d` (inserted, or replacing the stored one). */
async function putDelivery(tx: postgres.TransactionSql, d: DeliveryRecord): Promise<void> {
  await tx`
    insert into webhook_deliveries (id, endpoint, type, state, expires_at, record)
    values (${d.id}, ${d.endpoint}, ${d.type}, ${d.state}, ${d.expires_at ?? null}, ${json(tx, d)})
    on conflict (id, endpoint) do update
      set state = excluded.state, expires_at = excluded.expires_at, record = excluded.record`;
}

/**
 * {@linkcode OutboxStore} on PostgreSQL: one row per (endpoint, message id). A claim locks only
 * the head of the endpoint's queue, `SKIP LOCKED`: an instance that meets the head locked by
 * another claims nothing (it never skips ahead to the next message, which keeps the order),
 * and the lease written under that lock keeps every other instance off while it sends.
 * Delivery records are rows of `webhook_deliveries`, written in the same transactions.
 */
export class PgOutboxStore implements OutboxStore {
  /** @param sql the pool */
  constructor(private readonly sql: Sql) {}

  /** @inheritdoc */
  async claim(
    endpoint: string,
    owner: string,
    now: number,
    leaseUntil: number,
  ): Promise<PendingDelivery | undefined> {
    return await this.sql.begin(async (tx) => {
      const rows = await tx<{ record: PendingDelivery }[]>`
        select record from webhook_outbox
        where endpoint = ${endpoint}
          and id = (select min(id) from webhook_outbox where endpoint = ${endpoint})
        for update skip locked`;
      const m = rows[0]?.record;
      if (m === undefined || m.next_attempt_at > now || (m.lease_until ?? 0) > now) {
        return undefined;
      }
      const claimed: PendingDelivery = { ...m, lease_owner: owner, lease_until: leaseUntil };
      await tx`
        update webhook_outbox set record = ${json(tx, claimed)}
        where endpoint = ${endpoint} and id = ${m.id}`;
      return claimed;
    });
  }

  /** @inheritdoc */
  async settle(
    claimed: PendingDelivery,
    attempt: DeliveryAttempt,
    settlement: Settlement,
  ): Promise<boolean> {
    return await this.sql.begin(async (tx) => {
      const rows = await tx<{ record: PendingDelivery }[]>`
        select record from webhook_outbox
        where endpoint = ${claimed.endpoint} and id = ${claimed.id} for update`;
      const m = rows[0]?.record;
      if (
        m === undefined || m.lease_owner !== claimed.lease_owner ||
        m.lease_until !== claimed.lease_until
      ) return false;
      const stored = await tx<{ record: DeliveryRecord }[]>`
        select record from webhook_deliveries
        where id = ${m.id} and endpoint = ${m.endpoint} for update`;
      await putDelivery(tx, settledRecord(m, stored[0]?.record, attempt, settlement));
      if (!("retry_at" in settlement)) {
        await tx`
          delete from webhook_outbox where endpoint = ${m.endpoint} and id = ${m.id}`;
        return true;
      }
      const { lease_owner: _o, lease_until: _u, ...rest } = m;
      const next: PendingDelivery = {
        ...rest,
        attempts: m.attempts + 1,
        next_attempt_at: settlement.retry_at,
        last_error: attempt.error ?? "",
      };
      await tx`
        update webhook_outbox set record = ${json(tx, next)}
        where endpoint = ${m.endpoint} and id = ${m.id}`;
      return true;
    });
  }

  /** @inheritdoc */
  async pending(endpoint: string, limit: number): Promise<PendingDelivery[]> {
    const rows = await this.sql<{ record: PendingDelivery }[]>`
      select record from webhook_outbox where endpoint = ${endpoint} order by id limit ${limit}`;
    return rows.map((r) => r.record);
  }

  /** @inheritdoc */
  async deliveries(q: DeliveryQuery, limit: number): Promise<DeliveryRecord[]> {
    const sql = this.sql;
    const rows = await sql<{ record: DeliveryRecord }[]>`
      select record from webhook_deliveries
      where true
        ${
      q.before === undefined ? sql`` : sql`and (id, endpoint) < (${q.before[0]}, ${q.before[1]})`
    }
        ${q.endpoint === undefined ? sql`` : sql`and endpoint = ${q.endpoint}`}
        ${q.type === undefined ? sql`` : sql`and type = ${q.type}`}
        ${q.state === undefined ? sql`` : sql`and state = ${q.state}`}
      order by id desc, endpoint desc limit ${limit}`;
    return rows.map((r) => r.record);
  }

  /** @inheritdoc */
  async redeliver(
    endpoint: string,
    id: string,
    now: number,
    audit?: readonly AuditRecord[],
  ): Promise<Redelivery | undefined> {
    return await this.sql.begin(async (tx) => {
      const rows = await tx<{ record: DeliveryRecord }[]>`
        select record from webhook_deliveries
        where id = ${id} and endpoint = ${endpoint} for update`;
      const d = rows[0]?.record;
      if (d === undefined) return undefined;
      if (d.state === "pending") return { record: d, requeued: false };
      const [next, pending] = requeued(d, now);
      await putDelivery(tx, next);
      await tx`
        insert into webhook_outbox (endpoint, id, record)
        values (${endpoint}, ${id}, ${json(tx, pending)})`;
      await insertOutbox(tx, audit);
      return { record: next, requeued: true };
    });
  }
}
