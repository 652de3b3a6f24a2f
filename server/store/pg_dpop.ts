import type { Clock } from "@org/shared";
import type { DpopStore } from "./dpop.ts";
import type { Sql } from "./pg_connection.ts";

/** The `service_secrets` row holding the DPoP nonce secret. */
const NONCE_SECRET = "dpop_nonce";

/**
 * {@linkcode DpopStore} on PostgreSQL. A mark's expiry is decided by its stored `expires_at`
 * against the injected clock; the cleanup sweep deletes expired marks.
 */
export class PgDpopStore implements DpopStore {
  /** @param sql the pool @param clock the time source for expiries */
  constructor(private readonly sql: Sql, private readonly clock: Clock) {}

  /** @inheritdoc */
  async markProofUsed(id: string, expiresAt: number): Promise<boolean> {
    // One statement: the primary key makes single use the database's call on every instance;
    // an expired mark not yet swept is taken over.
    const rows = await this.sql`
      insert into dpop_proofs (id, expires_at) values (${id}, ${expiresAt})
      on conflict (id) do update set expires_at = excluded.expires_at
        where dpop_proofs.expires_at <= ${this.clock.now()}
      returning 1`;
    return rows.length === 1;
  }

  /** @inheritdoc */
  async nonceSecret(candidate: string): Promise<string> {
    const rows = await this.sql<{ value: string }[]>`
      with ins as (
        insert into service_secrets (name, value) values (${NONCE_SECRET}, ${candidate})
        on conflict (name) do nothing returning value
      )
      select value from ins union all
      select value from service_secrets where name = ${NONCE_SECRET}`;
    const value = rows[0]?.value;
    if (value === undefined) throw new Error("the DPoP nonce secret vanished");
    return value;
  }
}
