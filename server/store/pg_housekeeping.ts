import type { Housekeeping } from "./housekeeping.ts";
import { SWEEP_LIMIT } from "./housekeeping.ts";
import type { Sql } from "./pg_connection.ts";

/** One kind of record the sweep deletes once it has ended. */
interface Ending {
  readonly table: string;
  /** The primary key's columns. */
  readonly key: readonly string[];
  /** The column holding when the row has ended (ms). */
  readonly ends: string;
  /** Oldest first (the sessions: their counter is lowered in end order). */
  readonly oldestFirst?: boolean;
}

/** Every kind of record that ends, in the order the sweep deletes them. */
const ENDINGS: readonly Ending[] = [
  { table: "session_families", key: ["id"], ends: "expires_at", oldestFirst: true },
  { table: "refresh_tokens", key: ["hash"], ends: "expires_at" },
  { table: "nonces", key: ["hash"], ends: "expires_at" },
  { table: "used_id_tokens", key: ["issuer", "id"], ends: "expires_at" },
  { table: "dpop_proofs", key: ["id"], ends: "expires_at" },
  { table: "rate_limits", key: ["key", "window_start"], ends: "forget_at" },
  { table: "operator_lockouts", key: ["peer"], ends: "forget_at" },
  { table: "audit_log", key: ["id"], ends: "expires_at" },
  { table: "webhook_deliveries", key: ["id", "endpoint"], ends: "expires_at" },
];

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
    let families = 0;
    for (const e of ENDINGS) {
      const deleted = await this.deleteEnded(e, now, limit);
      if (e.table === "session_families") families = deleted;
    }
    return families;
  }

  /** Deletes at most `limit` rows of `e` ended at `now`; how many. */
  private async deleteEnded(e: Ending, now: number, limit: number): Promise<number> {
    const { sql } = this;
    const key = sql(e.key as string[]);
    const rows = await sql`
      delete from ${sql(e.table)} where (${key}) in (
        select ${key} from ${sql(e.table)} where ${sql(e.ends)} <= ${now}
        ${e.oldestFirst ? sql`order by ${sql(e.ends)}` : sql``}
        limit ${limit} for update skip locked)
      returning 1`;
    return rows.length;
  }
}
