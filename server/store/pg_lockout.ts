import type { Clock } from "@org/shared";
import type { LockoutState, LockoutStore } from "./lockout.ts";
import type { OutboxFor } from "./side_records.ts";
import { json, type Sql } from "./pg_connection.ts";
import { insertOutbox } from "./pg_outbox.ts";

/**
 * {@linkcode LockoutStore} on PostgreSQL: one row per peer address, changed under its row lock
 * so concurrent attempts on every instance are counted one after another. A row past its
 * `forget_at` reads as no record; the cleanup sweep deletes it.
 */
export class PgLockoutStore implements LockoutStore {
  /** @param sql the pool @param clock the time source deciding when a record is forgotten */
  constructor(private readonly sql: Sql, private readonly clock: Clock) {}

  /** @inheritdoc */
  async get(peer: string): Promise<LockoutState | undefined> {
    const rows = await this.sql<{ state: LockoutState | null }[]>`
      select state from operator_lockouts where peer = ${peer} and forget_at > ${this.clock.now()}`;
    return rows[0]?.state ?? undefined;
  }

  /** @inheritdoc */
  async update(
    peer: string,
    change: (current: LockoutState | undefined) => LockoutState,
    forgetAt: (next: LockoutState) => number,
    outbox?: OutboxFor<[before: LockoutState | undefined, next: LockoutState]>,
  ): Promise<LockoutState> {
    return await this.sql.begin(async (tx) => {
      // A row to lock must exist first; concurrent first attempts meet on the primary key.
      await tx`
        insert into operator_lockouts (peer, state, forget_at) values (${peer}, null, 0)
        on conflict do nothing`;
      const rows = await tx<{ state: LockoutState | null; forget_at: string }[]>`
        select state, forget_at from operator_lockouts where peer = ${peer} for update`;
      const row = rows[0]!;
      const current = Number(row.forget_at) > this.clock.now() ? row.state ?? undefined : undefined;
      const next = change(current);
      await tx`
        update operator_lockouts set state = ${json(tx, next)}, forget_at = ${forgetAt(next)}
        where peer = ${peer}`;
      await insertOutbox(tx, outbox?.(current, next));
      return next;
    });
  }
}
