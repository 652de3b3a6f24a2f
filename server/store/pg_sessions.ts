import type { Clock } from "@org/shared";
import type {
  RefreshRecord,
  RefreshSnapshot,
  RotateOutcome,
  SessionFamily,
  SessionStore,
  UserRecord,
} from "./store.ts";
import { json, type Sql } from "./pg_connection.ts";
import { SWEEP_LIMIT } from "./kv_sessions.ts";

/** The row {@linkcode PgSessionStore.readForRefresh} reads in one query. */
interface RefreshRow {
  record: RefreshRecord;
  record_version: string;
  family: SessionFamily | null;
  family_version: string | null;
  user: UserRecord | null;
  user_version: string | null;
  successor_live: boolean | null;
}

/**
 * {@linkcode SessionStore} on PostgreSQL. Every read-modify-write is one statement or one
 * transaction whose outcome the database decides: a rotation is a conditional update of the
 * presented token's row (its version) under share locks on its family and user rows, so of
 * any number of concurrent rotations on any number of instances exactly one commits, and a
 * revocation or user change either waits for it or makes it fail.
 */
export class PgSessionStore implements SessionStore {
  /** @param sql the pool @param clock the time source deciding expiry */
  constructor(private readonly sql: Sql, private readonly clock: Clock) {}

  /** @inheritdoc */
  async create(family: SessionFamily, refresh: RefreshRecord): Promise<void> {
    // One statement, so one transaction: both rows or neither.
    await this.sql`
      with f as (
        insert into session_families (id, user_id, expires_at, revoked, record)
        values (${family.id}, ${family.user_id}, ${family.expires_at}, ${family.revoked},
          ${json(this.sql, family)})
        returning id
      )
      insert into refresh_tokens (hash, family_id, user_id, expires_at, record)
      select ${refresh.hash}, f.id, ${refresh.user_id}, ${refresh.expires_at},
        ${json(this.sql, refresh)}
      from f`;
  }

  /** @inheritdoc */
  async getFamily(id: string): Promise<SessionFamily | undefined> {
    const rows = await this.sql<{ record: SessionFamily }[]>`
      select record from session_families where id = ${id} and expires_at > ${this.clock.now()}`;
    return rows[0]?.record;
  }

  /** @inheritdoc */
  async getRefresh(hash: string): Promise<RefreshRecord | undefined> {
    const rows = await this.sql<{ record: RefreshRecord }[]>`
      select record from refresh_tokens where hash = ${hash}`;
    return rows[0]?.record;
  }

  /** @inheritdoc */
  async revokeFamily(id: string, at: number): Promise<boolean> {
    const rows = await this.sql`
      update session_families
      set revoked = true, version = version + 1,
        record = record || jsonb_build_object('revoked', true, 'revoked_at', ${at}::bigint)
      where id = ${id} and not revoked and expires_at > ${this.clock.now()}
      returning 1`;
    return rows.length === 1;
  }

  /** @inheritdoc */
  async familiesOfUser(userId: string): Promise<string[]> {
    const rows = await this.sql<{ id: string }[]>`
      select id from session_families where user_id = ${userId} order by id`;
    return rows.map((r) => r.id);
  }

  /** @inheritdoc */
  async revokeAllOfUser(userId: string, at: number): Promise<number> {
    const rows = await this.sql`
      update session_families
      set revoked = true, version = version + 1,
        record = record || jsonb_build_object('revoked', true, 'revoked_at', ${at}::bigint)
      where user_id = ${userId} and not revoked and expires_at > ${this.clock.now()}
      returning 1`;
    return rows.length;
  }

  /** @inheritdoc */
  async readForRefresh(hash: string): Promise<RefreshSnapshot | undefined> {
    // Record, family, user and successor in one round trip.
    const rows = await this.sql<RefreshRow[]>`
      select r.record, r.version as record_version,
        f.record as family, f.version as family_version,
        u.record as user, u.version as user_version,
        case when r.record ? 'successor'
          then s.hash is not null and not (s.record ? 'retired_at') end as successor_live
      from refresh_tokens r
      left join session_families f on f.id = r.family_id
      left join users u on u.id = r.user_id
      left join refresh_tokens s on s.hash = r.record -> 'successor' ->> 'hash'
      where r.hash = ${hash}`;
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      record: row.record,
      family: row.family ?? undefined,
      user: row.user ?? undefined,
      successorLive: row.successor_live ?? undefined,
      versions: {
        record: String(row.record_version),
        family: row.family_version === null ? null : String(row.family_version),
        user: row.user_version === null ? null : String(row.user_version),
      },
    };
  }

  /** @inheritdoc */
  async rotate(
    snapshot: RefreshSnapshot,
    retired: RefreshRecord,
    next: RefreshRecord,
  ): Promise<RotateOutcome> {
    const { versions } = snapshot;
    if (versions.family === null || versions.user === null) return "changed";
    // The update waits for any concurrent rotation of the same row and then re-checks the
    // version, so only one of them matches. The share locks make a concurrent revocation or
    // user change wait for this commit, or this one see its new version and fail.
    const rows = await this.sql`
      with family as (
        select 1 from session_families
        where id = ${retired.family_id} and version = ${versions.family} for share
      ), owner as (
        select 1 from users where id = ${retired.user_id} and version = ${versions.user} for share
      ), retire as (
        update refresh_tokens set record = ${json(this.sql, retired)}, version = version + 1
        where hash = ${retired.hash} and version = ${versions.record}
          and exists (select 1 from family) and exists (select 1 from owner)
        returning 1
      )
      insert into refresh_tokens (hash, family_id, user_id, expires_at, record)
      select ${next.hash}, ${next.family_id}, ${next.user_id}, ${next.expires_at},
        ${json(this.sql, next)}
      from retire
      returning 1`;
    return rows.length === 1 ? "rotated" : "changed";
  }

  /**
   * @inheritdoc
   *
   * Nothing in PostgreSQL expires by itself, so this sweep also deletes expired nonces,
   * used-ID-token markers and forgotten lockout records (at most `limit` of each). Rows are
   * claimed with `skip locked`: several instances sweeping at once share the work.
   */
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
      delete from operator_lockouts where peer in (
        select peer from operator_lockouts where forget_at <= ${now}
        limit ${limit} for update skip locked)`;
    return families.length;
  }
}
