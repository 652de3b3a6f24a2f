import type { Housekeeping } from "./housekeeping.ts";
import { SWEEP_LIMIT } from "./housekeeping.ts";
import type { Sql } from "./pg_connection.ts";

/**
 * {@linkcode Housekeeping} on PostgreSQL. Nothing in PostgreSQL expires by itself, so the
 * sweep deletes every kind of record that ends: session families and refresh tokens past their
 * end, expired nonces, used-ID-token markers and used DPoP proof marks, past rate-limit
 * windows, forgotten lockout records, and audit records and settled webhook deliveries past
 * their `expires_at` (at most `limit` of each). Rows are claimed with `skip locked`: several
 * instances sweeping at once share the work.
 */
export class PgHousekeeping implements Housekeeping {
  /** @param sql the pool */
  constructor(private readonly sql: Sql) {}

  /** @inheritdoc */
  async sweepExpired(now: number, limit = SWEEP_LIMIT): Promise<number> {
    const families = await this.sql`
      delete from session_families where id in (
        select id from session_families where expires_at <= ${now}
        order by expires_at limit ${limit} for update skip locked)
      returning 1`;
    await this.sql`
      delete from refresh_tokens where hash in (
        select hash from refresh_tokens where expires_at <= ${now}
        limit ${limit} for update skip locked)`;
    await this.sql`
      delete from nonces where hash in (
        select hash from nonces where expires_at <= ${now} limit ${limit} for update skip locked)`;
    await this.sql`
      delete from used_id_tokens where (issuer, id) in (
        select issuer, id from used_id_tokens where expires_at <= ${now}
        limit ${limit} for update skip locked)`;
    await this.sql`
      delete from dpop_proofs where id in (
        select id from dpop_proofs where expires_at <= ${now} limit ${limit} for update skip locked)`;
    await this.sql`
      delete from rate_limits where (key, window_start) in (
        select key, window_start from rate_limits where forget_at <= ${now}
        limit ${limit} for update skip locked)`;
    await this.sql`
      delete from operator_lockouts where peer in (
        select peer from operator_lockouts where forget_at <= ${now}
        limit ${limit} for update skip locked)`;
    await this.sql`
      delete from audit_log where id in (
        select id from audit_log where expires_at <= ${now} limit ${limit} for update skip locked)`;
    await this.sql`
      delete from webhook_deliveries where (id, endpoint) in (
        select id, endpoint from webhook_deliveries where expires_at <= ${now}
        limit ${limit} for update skip locked)`;
    return families.length;
  }
}
