import type postgres from "postgres";
import type { OutboxMessage, OutboxStore, PendingDelivery } from "./store.ts";
import { json, type Sql } from "./pg_connection.ts";

/**
 * Inserts `messages` inside the transaction `tx`, so they commit with the change it makes (or
 * not at all). A message starts due at once with no attempt made.
 */
export async function insertOutbox(
  tx: postgres.TransactionSql,
  messages: readonly OutboxMessage[] | undefined,
): Promise<void> {
  for (const m of messages ?? []) {
    const pending: PendingDelivery = { ...m, attempts: 0, next_attempt_at: m.created_at };
    await tx`
      insert into webhook_outbox (endpoint, id, record)
      values (${m.endpoint}, ${m.id}, ${json(tx, pending)})`;
  }
}

/**
 * {@linkcode OutboxStore} on PostgreSQL: one row per (endpoint, message id). A claim locks only
 * the head of the endpoint's queue, `SKIP LOCKED`: an instance that meets the head locked by
 * another claims nothing (it never skips ahead to the next message, which keeps the order),
 * and the lease written under that lock keeps every other instance off while it sends.
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
    retry?: { at: number; error: string },
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
      if (retry === undefined) {
        await tx`
          delete from webhook_outbox where endpoint = ${m.endpoint} and id = ${m.id}`;
        return true;
      }
      const { lease_owner: _o, lease_until: _u, ...rest } = m;
      const next: PendingDelivery = {
        ...rest,
        attempts: m.attempts + 1,
        next_attempt_at: retry.at,
        last_error: retry.error,
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
}
