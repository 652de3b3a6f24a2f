import type { FailureRun, WebhookHealthStore } from "./webhook_health.ts";
import type { Sql } from "./pg_connection.ts";

/**
 * {@linkcode WebhookHealthStore} on PostgreSQL: one row per endpoint with a run of consecutive
 * failures under way, read and changed under a row lock, deleted when a success ends the run.
 */
export class PgWebhookHealthStore implements WebhookHealthStore {
  /** @param sql the pool */
  constructor(private readonly sql: Sql) {}

  /** @inheritdoc */
  async record(endpoint: string, delivered: boolean): Promise<FailureRun> {
    if (delivered) {
      // Ending a run: one statement, which reports the run it deleted (if any).
      const rows = await this.sql<{ consecutive_failures: number }[]>`
        delete from webhook_endpoint_health where endpoint = ${endpoint}
        returning consecutive_failures`;
      return { before: rows[0]?.consecutive_failures ?? 0, after: 0 };
    }
    // The upsert takes the row lock, so concurrent failures on several instances each count.
    const rows = await this.sql<{ consecutive_failures: number }[]>`
      insert into webhook_endpoint_health (endpoint, consecutive_failures) values (${endpoint}, 1)
      on conflict (endpoint) do update
        set consecutive_failures = webhook_endpoint_health.consecutive_failures + 1
      returning consecutive_failures`;
    const after = rows[0]!.consecutive_failures;
    return { before: after - 1, after };
  }

  /** @inheritdoc */
  async read(): Promise<Map<string, number>> {
    const rows = await this.sql<{ endpoint: string; consecutive_failures: number }[]>`
      select endpoint, consecutive_failures from webhook_endpoint_health`;
    return new Map(rows.map((r) => [r.endpoint, r.consecutive_failures]));
  }
}
