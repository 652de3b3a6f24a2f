/**
 * The PostgreSQL schema of the token-exchange store, as numbered migrations applied in order
 * under an advisory lock, so N instances starting at once migrate once. `serve --migrate-only`
 * applies them and exits, for operators who migrate as a separate deploy step.
 *
 * A migration is never edited once released; a change is a new migration.
 *
 * @module
 */
import type { Sql } from "./pg_connection.ts";

/** One schema step. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * The schema, oldest first. Records are kept whole as `jsonb` (fields added later pass through
 * without a migration); the columns beside them are what queries select, join or order on.
 * Times are milliseconds since the epoch, as in the records. Row `version`s are what
 * compare-and-swap updates check.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial schema",
    sql: `
      create table users (
        id text primary key,
        provider text not null,
        external_id text not null,
        status text not null,
        record jsonb not null,
        version bigint not null default 1,
        unique (provider, external_id)
      );
      create index users_status on users (status);
      create table session_families (
        id text primary key,
        user_id text not null,
        expires_at bigint not null,
        revoked boolean not null default false,
        record jsonb not null,
        version bigint not null default 1
      );
      create index session_families_user on session_families (user_id);
      create index session_families_expiry on session_families (expires_at);
      create table refresh_tokens (
        hash text primary key,
        family_id text not null,
        user_id text not null,
        expires_at bigint not null,
        record jsonb not null,
        version bigint not null default 1
      );
      create index refresh_tokens_expiry on refresh_tokens (expires_at);
      create table nonces (
        hash text primary key,
        expires_at bigint not null,
        record jsonb not null
      );
      create index nonces_expiry on nonces (expires_at);
      create table used_id_tokens (
        issuer text not null,
        id text not null,
        expires_at bigint not null,
        primary key (issuer, id)
      );
      create index used_id_tokens_expiry on used_id_tokens (expires_at);
      create table operator_lockouts (
        peer text primary key,
        state jsonb,
        forget_at bigint not null
      );
      create index operator_lockouts_expiry on operator_lockouts (forget_at);
      create table key_ring (
        id smallint primary key check (id = 1),
        ring jsonb not null,
        version bigint not null default 1
      );
    `,
  },
  {
    version: 2,
    name: "shared public rate limit",
    sql: `
      create table rate_limits (
        key text not null,
        window_start bigint not null,
        count integer not null,
        forget_at bigint not null,
        primary key (key, window_start)
      );
      create index rate_limits_expiry on rate_limits (forget_at);
    `,
  },
  {
    version: 3,
    name: "dpop proofs and service secrets",
    sql: `
      create table dpop_proofs (
        id text primary key,
        expires_at bigint not null
      );
      create index dpop_proofs_expiry on dpop_proofs (expires_at);
      create table service_secrets (
        name text primary key,
        value text not null
      );
    `,
  },
  {
    version: 4,
    name: "provider tokens and their revocation queue",
    sql: `
      create table provider_tokens (
        user_id text primary key,
        provider text not null,
        sealed text not null
      );
      create table provider_revocations (
        user_id text primary key,
        provider text not null,
        sealed text not null,
        attempts integer not null,
        next_at bigint not null,
        leased_until bigint not null,
        last_error text
      );
      create index provider_revocations_due on provider_revocations (next_at);
    `,
  },
  {
    version: 5,
    name: "webhook outbox",
    sql: `
      create table webhook_outbox (
        endpoint text not null,
        id text not null,
        record jsonb not null,
        primary key (endpoint, id)
      );
    `,
  },
  {
    version: 6,
    name: "webhook deliveries and the audit trail",
    sql: `
      create table webhook_deliveries (
        id text not null,
        endpoint text not null,
        type text not null,
        state text not null,
        expires_at bigint,
        record jsonb not null,
        primary key (id, endpoint)
      );
      create index webhook_deliveries_endpoint on webhook_deliveries (endpoint, id);
      create index webhook_deliveries_expiry on webhook_deliveries (expires_at)
        where expires_at is not null;
      create table audit_log (
        id text primary key,
        at bigint not null,
        actor text not null,
        action text not null,
        user_id text,
        expires_at bigint not null,
        record jsonb not null
      );
      create index audit_log_actor on audit_log (actor, id);
      create index audit_log_action on audit_log (action, id);
      create index audit_log_user on audit_log (user_id, id);
      create index audit_log_expiry on audit_log (expires_at);
    `,
  },
  {
    version: 7,
    name: "webhook endpoint health",
    sql: `
      create table webhook_endpoint_health (
        endpoint text primary key,
        consecutive_failures integer not null
      );
    `,
  },
  {
    version: 8,
    name: "session last used",
    sql: `
      alter table session_families add column last_used_at bigint;
    `,
  },
];

/** The advisory lock every instance takes to migrate: one migrates, the others wait. */
const MIGRATION_LOCK = 0x7465_6d69; // "temi"

/**
 * Applies every migration the database lacks, in one transaction under an advisory lock.
 * Refuses to run against a schema newer than this release knows.
 *
 * @param sql a connection pool
 * @returns the versions applied now (empty when the schema was current)
 * @throws {Error} when the database's schema is newer than this release
 */
export async function migrate(sql: Sql): Promise<number[]> {
  return await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`
      create table if not exists schema_migrations (
        version integer primary key,
        name text not null,
        applied_at timestamptz not null default now()
      )`;
    const rows = await tx<{ version: number }[]>`select version from schema_migrations`;
    const done = new Set(rows.map((r) => r.version));
    const known = Math.max(...MIGRATIONS.map((m) => m.version));
    const newest = Math.max(0, ...done);
    if (newest > known) {
      throw new Error(
        `the database schema is at version ${newest}, newer than this release knows ` +
          `(${known}); run the newer release or restore a matching backup`,
      );
    }
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      await tx.unsafe(m.sql);
      await tx`insert into schema_migrations (version, name) values (${m.version}, ${m.name})`;
      applied.push(m.version);
    }
    return applied;
  });
}
