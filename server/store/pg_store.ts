import type { Clock } from "@org/shared";
import type { KeyRing, KeyRingStore } from "./keys.ts";
import type { Store } from "./store.ts";
import type { StatsStore } from "./users.ts";
import { json, type Sql } from "./pg_connection.ts";
import { PgUserStore } from "./pg_users.ts";
import { PgSessionStore } from "./pg_sessions.ts";
import { PgNonceStore } from "./pg_nonces.ts";
import { PgLockoutStore } from "./pg_lockout.ts";
import { PgRateLimitStore } from "./pg_rate_limits.ts";
import { PgHousekeeping } from "./pg_housekeeping.ts";
import { PgDpopStore } from "./pg_dpop.ts";
import { PgWebhookHealthStore } from "./pg_webhook_health.ts";
import { PgOutboxStore } from "./pg_outbox.ts";
import { PgAuditStore } from "./pg_audit.ts";
import { PgProviderTokenStore } from "./pg_provider_tokens.ts";

/**
 * The whole {@linkcode Store} on a PostgreSQL pool, shared by every instance that connects to
 * the same database. The caller opens the pool and applies the migrations (`migrate`).
 *
 * @param sql the pool (`openPostgres`)
 * @param clock the time source for expiries
 * @returns the store
 *
 * @example
 * ```ts
 * import { systemClock } from "@org/shared";
 * import { openPostgres } from "./pg_connection.ts";
 * import { migrate } from "./pg_migrations.ts";
 *
 * async function open(url: string) {
 *   const sql = openPostgres({ url, poolSize: 10 });
 *   await migrate(sql);
 *   return createPgStore(sql, systemClock);
 * }
 * ```
 */
export function createPgStore(sql: Sql, clock: Clock): Store {
  return {
    users: new PgUserStore(sql, clock),
    sessions: new PgSessionStore(sql, clock),
    keyring: new PgKeyRingStore(sql),
    stats: new PgStatsStore(sql),
    nonces: new PgNonceStore(sql, clock),
    lockouts: new PgLockoutStore(sql, clock),
    rateLimits: new PgRateLimitStore(sql),
    housekeeping: new PgHousekeeping(sql),
    dpop: new PgDpopStore(sql, clock),
    outbox: new PgOutboxStore(sql),
    audit: new PgAuditStore(sql),
    webhookHealth: new PgWebhookHealthStore(sql),
    providerTokens: new PgProviderTokenStore(sql),
    async ping() {
      await sql`select 1`;
    },
  };
}

/**
 * {@linkcode KeyRingStore} on PostgreSQL: one row holding the ring as `jsonb` (so fields a
 * later release adds to a key pass through untouched), saved with a version check.
 */
export class PgKeyRingStore implements KeyRingStore {
  /** @param sql the pool */
  constructor(private readonly sql: Sql) {}

  /** @inheritdoc */
  async load(): Promise<{ ring: KeyRing | undefined; version: string | null }> {
    const rows = await this.sql<{ ring: KeyRing; version: string }[]>`
      select ring, version from key_ring where id = 1`;
    const row = rows[0];
    return row
      ? { ring: row.ring, version: String(row.version) }
      : { ring: undefined, version: null };
  }

  /** @inheritdoc */
  async save(ring: KeyRing, version: string | null): Promise<boolean> {
    const rows = version === null
      ? await this.sql`
          insert into key_ring (id, ring) values (1, ${json(this.sql, ring)})
          on conflict do nothing returning 1`
      : await this.sql`
          update key_ring set ring = ${json(this.sql, ring)}, version = version + 1
          where id = 1 and version = ${version} returning 1`;
    return rows.length === 1;
  }
}

/**
 * {@linkcode StatsStore} on PostgreSQL: counted from the rows (indexed), so the figures are
 * exact without counters to keep: users per status, and sessions stored and not revoked
 * (expired ones leave at the sweep, as with KV).
 */
export class PgStatsStore implements StatsStore {
  /** @param sql the pool */
  constructor(private readonly sql: Sql) {}

  /** @inheritdoc */
  async read(): Promise<{ users: Record<string, number>; sessions: number }> {
    const [byStatus, sessions] = await Promise.all([
      this.sql<{ status: string; n: number }[]>`
        select status, count(*)::int as n from users group by status`,
      this.sql<{ n: number }[]>`select count(*)::int as n from session_families where not revoked`,
    ]);
    const users: Record<string, number> = {};
    for (const r of byStatus) users[r.status] = r.n;
    return { users, sessions: sessions[0]!.n };
  }
}
