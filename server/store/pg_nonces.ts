import type { Clock } from "@org/shared";
import type { AssertionMark, NonceRecord, NonceStore, RedeemOutcome } from "./nonces.ts";
import { json, type Sql } from "./pg_connection.ts";

/** Thrown inside a redemption to roll it back: the ID token was already redeemed. */
class AlreadyUsed extends Error {}

/**
 * {@linkcode NonceStore} on PostgreSQL. Expiry is decided by the stored `expires_at` against
 * the injected clock; the cleanup sweep deletes what has expired.
 */
export class PgNonceStore implements NonceStore {
  /** @param sql the pool @param clock the time source for expiries */
  constructor(private readonly sql: Sql, private readonly clock: Clock) {}

  /** @inheritdoc */
  async put(record: NonceRecord): Promise<void> {
    // 256 random bits: a clash (a unique violation here) means a broken random source.
    await this.sql`
      insert into nonces (hash, expires_at, record)
      values (${record.hash}, ${record.expires_at}, ${json(this.sql, record)})`;
  }

  /** @inheritdoc */
  async redeem(
    nonceHashes: readonly string[],
    assertion: AssertionMark,
  ): Promise<RedeemOutcome> {
    const now = this.clock.now();
    try {
      return await this.sql.begin(async (tx) => {
        // Deleting takes the rows' locks: a concurrent redemption of the same nonce (on any
        // instance) waits, then finds nothing to delete. Single use is the database's call.
        const taken = await tx<{ expires_at: string }[]>`
          delete from nonces where hash = any(${nonceHashes as string[]})
          returning expires_at`;
        if (taken.length === 0) return "nonce_unknown";
        if (!taken.some((n) => Number(n.expires_at) > now)) return "nonce_expired";
        // Claims the marker unless an unexpired one exists; an expired one is taken over.
        const marked = await tx`
          insert into used_id_tokens (issuer, id, expires_at)
          values (${assertion.issuer}, ${assertion.id}, ${assertion.expires_at})
          on conflict (issuer, id) do update set expires_at = excluded.expires_at
            where used_id_tokens.expires_at <= ${now}
          returning 1`;
        // Refused: the nonce must stay unconsumed, so the whole transaction rolls back.
        if (marked.length === 0) throw new AlreadyUsed();
        return "redeemed";
      });
    } catch (err) {
      if (err instanceof AlreadyUsed) return "assertion_used";
      throw err;
    }
  }
}
