import type { FailureRun, WebhookHealthStore } from "./webhook_health.ts";
import { K } from "./kv_keys.ts";

/**
 * {@linkcode WebhookHealthStore} on Deno KV: one entry per endpoint holding its run of
 * consecutive failures, changed by a versionstamp-checked commit (retried when another
 * instance counted meanwhile) and deleted when a success ends the run.
 */
export class KvWebhookHealthStore implements WebhookHealthStore {
  /** @param kv an opened Deno KV */
  constructor(private readonly kv: Deno.Kv) {}

  /** @inheritdoc */
  async record(endpoint: string, delivered: boolean): Promise<FailureRun> {
    const key = K.webhookFailures(endpoint);
    for (;;) {
      const entry = await this.kv.get<number>(key);
      const before = entry.value ?? 0;
      if (delivered && before === 0) return { before, after: 0 };
      const after = delivered ? 0 : before + 1;
      const op = this.kv.atomic().check(entry);
      if (after === 0) op.delete(key);
      else op.set(key, after);
      if ((await op.commit()).ok) return { before, after };
    }
  }

  /** @inheritdoc */
  async read(): Promise<Map<string, number>> {
    const runs = new Map<string, number>();
    for await (const e of this.kv.list<number>({ prefix: K.webhookFailuresPrefix })) {
      runs.set(String(e.key[e.key.length - 1]), e.value);
    }
    return runs;
  }
}
