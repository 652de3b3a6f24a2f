/**
 * The refresh half of the PostgreSQL session store, kept apart because it is the hot path and
 * is tuned for it: requests that arrive together share statements.
 *
 * - **Reads**: while reads are in flight, the next ones queue and go out as one query for
 *   every queued token (record, family, user and successor joined), one round trip for many.
 * - **Group commit**: while rotations are in flight, the next ones
 * queue and go out together as one statement (one transaction, one WAL flush, one round trip),
 * each still decided on its own checks: the statement retires a token only where its row,
 * family and user are at the versions the caller read, and inserts successors only for the
 * tokens it retired. A refresh with a DPoP proof inserts the proof's single-use mark in the same
 * statement, and retires its token only where the mark went in (it was absent, or expired), so
 * a replayed proof and a rotation cannot both succeed, on any number of instances, and no
 * crash can leave one without the other. A batch that fails as a whole (a deadlock between two instances' batches,
 * a lost connection) is replayed one rotation per statement, so each rotation succeeds or
 * fails on its own.
 *
 * @module
 */
import type { Clock } from "@org/shared";
import type { ProofMark } from "./dpop.ts";
import type { RefreshRecord, RefreshSnapshot, RotateOutcome, SessionFamily } from "./sessions.ts";
import type { UserRecord } from "./users.ts";
import { json, type Sql } from "./pg_connection.ts";
import { Batcher } from "./batcher.ts";
import { type PendingRotation, RotationQueue, sharesMark } from "./rotation_queue.ts";

/** Most rotations per statement. */
const MAX_BATCH = 64;
/**
 * Most reads, and most rotation statements, in flight per process: one, and a second only when
 * a full batch is waiting (`Batcher`'s rule, as in the KV store), so the requests arriving
 * meanwhile gather into the next statement. Measured (2 instances, 64 clients, PostgreSQL CPU
 * per refresh): four in flight ~280-390 µs, two ~210-275 µs, one ~140-170 µs, with throughput
 * and p99 no worse.
 */
const MAX_IN_FLIGHT = 2;

/** One row of the read query. */
interface RefreshRow {
  hash: string;
  record: RefreshRecord;
  record_version: string;
  family: SessionFamily | null;
  family_version: string | null;
  user: UserRecord | null;
  user_version: string | null;
  successor_live: boolean | null;
}

/** A queued read. */
interface PendingRead {
  readonly hash: string;
  readonly resolve: (snapshot: RefreshSnapshot | undefined) => void;
  readonly reject: (err: unknown) => void;
}

/** One rotation as the statement reads it (`jsonb_to_recordset`). */
interface Item {
  hash: string;
  rv: string;
  family_id: string;
  fv: string;
  user_id: string;
  uv: string;
  retired: RefreshRecord;
  next_hash: string;
  next_expires: number;
  next_record: RefreshRecord;
  /** The DPoP proof's mark, or null. */
  mark_id: string | null;
  mark_expires: number | null;
}

/** Group-committed rotations of refresh tokens on one PostgreSQL pool. */
export class PgRotation {
  /** Tokens whose rotation is queued or in flight here, to when it settles. */
  #queue = new RotationQueue((batch) => this.#commitBatch(batch), MAX_BATCH, MAX_IN_FLIGHT);
  #reads = new Batcher<PendingRead>((batch) => this.#readBatch(batch), MAX_BATCH, MAX_IN_FLIGHT);

  /** @param sql the pool @param clock decides whether an existing proof mark has expired */
  constructor(private readonly sql: Sql, private readonly clock: Clock) {}

  /**
   * Reads a refresh record by hash with its family, its user and (for a retired record)
   * whether its successor is live, in one query shared with the reads queued meanwhile.
   *
   * @param hash base64url SHA-256 of the presented token
   * @returns the snapshot, or `undefined` when no record has that hash
   */
  read(hash: string): Promise<RefreshSnapshot | undefined> {
    const { promise, resolve, reject } = Promise.withResolvers<RefreshSnapshot | undefined>();
    this.#reads.push({ hash, resolve, reject });
    return promise;
  }

  async #readBatch(batch: readonly PendingRead[]): Promise<void> {
    try {
      const rows = await this.sql<RefreshRow[]>`
        select r.hash, r.record, r.version as record_version,
          f.record as family, f.version as family_version,
          u.record as user, u.version as user_version,
          case when r.record ? 'successor'
            then s.hash is not null and not (s.record ? 'retired_at') end as successor_live
        from refresh_tokens r
        left join session_families f on f.id = r.family_id
        left join users u on u.id = r.user_id
        left join refresh_tokens s on s.hash = r.record -> 'successor' ->> 'hash'
        where r.hash = any(${[...new Set(batch.map((p) => p.hash))]}::text[])`;
      const byHash = new Map(rows.map((row) => [row.hash, snapshotOf(row)]));
      for (const p of batch) p.resolve(byHash.get(p.hash));
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }

  /**
   * Retires the snapshot's record and stores `next` if the record, its family and its user
   * are still at the snapshot's versions. Shares a statement with rotations queued meanwhile.
   *
   * @param mark the DPoP proof's mark, inserted in the same statement
   * @returns `rotated`; `raced` when this process is already rotating the same token;
   *   `replayed` when the proof's mark exists (nothing committed); `changed` when the record,
   *   family or user changed since the snapshot
   */
  rotate(
    snapshot: RefreshSnapshot,
    retired: RefreshRecord,
    next: RefreshRecord,
    mark?: ProofMark,
  ): Promise<RotateOutcome> {
    if (snapshot.versions.family === null || snapshot.versions.user === null) {
      return Promise.resolve("changed");
    }
    return this.#queue.rotate(snapshot, retired, next, mark);
  }

  async #commitBatch(batch: PendingRotation[]): Promise<void> {
    let rotated: Map<string, RotateOutcome>;
    try {
      // One proof twice in a statement would fail it as a whole (a row inserted twice).
      if (sharesMark(batch)) throw new Error("a proof mark twice in one batch");
      rotated = await this.#commit(batch);
    } catch (err) {
      if (batch.length === 1) return this.#settle(batch, undefined, err);
      // Replayed one by one: each rotation on its own checks, and its own error if any.
      await Promise.all(batch.map(async (p) => {
        try {
          this.#settle([p], await this.#commit([p]));
        } catch (err) {
          this.#settle([p], undefined, err);
        }
      }));
      return;
    }
    this.#settle(batch, rotated);
  }

  #settle(
    batch: readonly PendingRotation[],
    outcomes: Map<string, RotateOutcome> | undefined,
    err?: unknown,
  ): void {
    for (const p of batch) {
      if (outcomes === undefined) p.reject(err);
      else p.resolve(outcomes.get(p.retired.hash) ?? "changed");
    }
  }

  /**
   * One statement for `batch`: `rotated` for the tokens it retired, `replayed` for those whose
   * checks held but whose proof mark already existed; the rest changed.
   */
  async #commit(batch: readonly PendingRotation[]): Promise<Map<string, RotateOutcome>> {
    const items: Item[] = batch.map(({ snapshot, retired, next, mark }) => ({
      hash: retired.hash,
      rv: snapshot.versions.record,
      family_id: retired.family_id,
      fv: snapshot.versions.family!,
      user_id: retired.user_id,
      uv: snapshot.versions.user!,
      retired,
      next_hash: next.hash,
      next_expires: next.expires_at,
      next_record: next,
      mark_id: mark?.id ?? null,
      mark_expires: mark?.expiresAt ?? null,
    }));
    // Locking a row waits for a concurrent rotation of it and then re-checks its version, so
    // only one of them matches. The share locks make a concurrent revocation or user change
    // wait for this commit, or make this rotation see the new version and fail. Every lock is
    // taken in key order (as revocations take theirs), so statements of several instances
    // that share rows wait for each other instead of deadlocking.
    // A proof's mark goes in only for a rotation whose checks hold (an expired mark is taken
    // over), and the token is retired only where its mark went in: a concurrent statement with
    // the same proof waits on the mark's key and then finds it taken.
    const rows = await this.sql<{ hash: string; outcome: RotateOutcome }[]>`
      with input as (
        select * from jsonb_to_recordset(${json(this.sql, items)}) as i(
          hash text, rv bigint, family_id text, fv bigint, user_id text, uv bigint,
          retired jsonb, next_hash text, next_expires bigint, next_record jsonb,
          mark_id text, mark_expires bigint)
      ), families as (
        select f.id from session_families f join input i on f.id = i.family_id and f.version = i.fv
        order by f.id for share of f
      ), owners as (
        select u.id from users u join input i on u.id = i.user_id and u.version = i.uv
        order by u.id for share of u
      ), locked as (
        select r.hash from refresh_tokens r join input i on r.hash = i.hash and r.version = i.rv
        order by r.hash for update of r
      ), eligible as (
        select i.hash from input i
        where i.hash in (select hash from locked)
          and i.family_id in (select id from families) and i.user_id in (select id from owners)
      ), marks as (
        insert into dpop_proofs (id, expires_at)
        select i.mark_id, i.mark_expires from input i join eligible e on e.hash = i.hash
        where i.mark_id is not null
        order by i.mark_id
        on conflict (id) do update set expires_at = excluded.expires_at
          where dpop_proofs.expires_at <= ${this.clock.now()}
        returning id
      ), retire as (
        update refresh_tokens r set record = i.retired, version = r.version + 1
        from input i
        where r.hash = i.hash and i.hash in (select hash from eligible)
          and (i.mark_id is null or i.mark_id in (select id from marks))
        returning r.hash
      ), successors as (
        insert into refresh_tokens (hash, family_id, user_id, expires_at, record)
        select i.next_hash, i.family_id, i.user_id, i.next_expires, i.next_record
        from input i join retire on retire.hash = i.hash
      )
      select hash, 'rotated' as outcome from retire
      union all
      select i.hash, 'replayed' from input i join eligible e on e.hash = i.hash
      where i.mark_id is not null and i.mark_id not in (select id from marks)`;
    return new Map(rows.map((r) => [r.hash, r.outcome]));
  }
}

function snapshotOf(row: RefreshRow): RefreshSnapshot {
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
