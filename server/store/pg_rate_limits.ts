import type { RateLimitStore } from "./rate_limits.ts";
import { json, type Sql } from "./pg_connection.ts";

/**
 * {@linkcode RateLimitStore} on PostgreSQL: one row per client and window, added with one
 * upsert for every key of a call; the cleanup sweep deletes rows past `forget_at`.
 */
export class PgRateLimitStore implements RateLimitStore {
  /** @param sql the pool */
  constructor(private readonly sql: Sql) {}

  /** @inheritdoc */
  async add(
    window: number,
    counts: ReadonlyMap<string, number>,
    forgetAt: number,
  ): Promise<Map<string, number>> {
    if (counts.size === 0) return new Map();
    const rows = await this.sql<{ key: string; count: number }[]>`
      insert into rate_limits (key, window_start, count, forget_at)
      select c.key, ${window}, c.value::int, ${forgetAt}
      from jsonb_each_text(${json(this.sql, Object.fromEntries(counts))}) as c
      on conflict (key, window_start) do update set count = rate_limits.count + excluded.count
      returning key, count`;
    return new Map(rows.map((r) => [r.key, r.count]));
  }
}
