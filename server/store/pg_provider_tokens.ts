import type { KeptProviderToken, ProviderTokenStore, RevocationJob } from "./provider_tokens.ts";
import type { Sql } from "./pg_connection.ts";

interface JobRow {
  user_id: string;
  provider: string;
  sealed: string;
  attempts: number;
  next_at: string;
  leased_until: string;
  last_error: string | null;
}

/**
 * {@linkcode ProviderTokenStore} on PostgreSQL (migration 4): `provider_tokens` holds the kept
 * tokens, `provider_revocations` the queue. A lease takes due rows with `FOR UPDATE SKIP
 * LOCKED`, so instances leasing at once split the jobs instead of sharing one.
 */
export class PgProviderTokenStore implements ProviderTokenStore {
  /** @param sql the pool */
  constructor(private readonly sql: Sql) {}

  /** @inheritdoc */
  async keep(token: KeptProviderToken): Promise<void> {
    await this.sql`
      insert into provider_tokens (user_id, provider, sealed)
      values (${token.user_id}, ${token.provider}, ${token.sealed})
      on conflict (user_id) do update
        set provider = excluded.provider, sealed = excluded.sealed`;
  }

  /** @inheritdoc */
  async queue(userId: string, at: number): Promise<boolean> {
    const rows = await this.sql`
      with moved as (delete from provider_tokens where user_id = ${userId} returning *)
      insert into provider_revocations (user_id, provider, sealed, attempts, next_at, leased_until)
      select user_id, provider, sealed, 0, ${at}, 0 from moved
      on conflict (user_id) do update
        set provider = excluded.provider, sealed = excluded.sealed, attempts = 0,
            next_at = excluded.next_at, leased_until = 0, last_error = null
      returning 1`;
    return rows.length === 1;
  }

  /** @inheritdoc */
  async lease(now: number, leasedUntil: number, limit: number): Promise<RevocationJob[]> {
    const rows = await this.sql<JobRow[]>`
      update provider_revocations set leased_until = ${leasedUntil}
      where user_id in (
        select user_id from provider_revocations
        where next_at <= ${now} and leased_until <= ${now}
        order by next_at limit ${limit}
        for update skip locked
      )
      returning *`;
    return rows.map((r) => ({
      user_id: r.user_id,
      provider: r.provider,
      sealed: r.sealed,
      attempts: r.attempts,
      next_at: Number(r.next_at),
      leased_until: Number(r.leased_until),
      ...(r.last_error === null ? {} : { last_error: r.last_error }),
    }));
  }

  /** @inheritdoc */
  async done(userId: string): Promise<void> {
    await this.sql`delete from provider_revocations where user_id = ${userId}`;
  }

  /** @inheritdoc */
  async retry(userId: string, nextAt: number, error: string): Promise<void> {
    await this.sql`
      update provider_revocations
      set attempts = attempts + 1, next_at = ${nextAt}, leased_until = 0, last_error = ${error}
      where user_id = ${userId}`;
  }

  /** @inheritdoc */
  async pending(): Promise<number> {
    const rows = await this.sql<{ n: number }[]>`
      select count(*)::int as n from provider_revocations`;
    return rows[0]!.n;
  }
}
