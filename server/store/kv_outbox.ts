import type { OutboxMessage, OutboxStore, PendingDelivery } from "./store.ts";
import { K } from "./kv_keys.ts";

/**
 * Adds `messages` to the atomic operation `op`, so they commit with the change it makes (or
 * not at all). A message starts due at once with no attempt made.
 */
export function queueOutbox(
  op: Deno.AtomicOperation,
  messages: readonly OutboxMessage[] | undefined,
): Deno.AtomicOperation {
  for (const m of messages ?? []) {
    const pending: PendingDelivery = { ...m, attempts: 0, next_attempt_at: m.created_at };
    op.check({ key: K.outbox(m.endpoint, m.id), versionstamp: null })
      .set(K.outbox(m.endpoint, m.id), pending);
  }
  return op;
}

/**
 * {@linkcode OutboxStore} on Deno KV: one entry per (endpoint, message id), so a prefix listing
 * yields an endpoint's queue in send order; claims and settlements are versionstamp-checked.
 */
export class KvOutboxStore implements OutboxStore {
  /** @param kv an opened Deno KV */
  constructor(private readonly kv: Deno.Kv) {}

  /** @inheritdoc */
  async claim(
    endpoint: string,
    owner: string,
    now: number,
    leaseUntil: number,
  ): Promise<PendingDelivery | undefined> {
    for (;;) {
      const head = await this.#head(endpoint);
      if (head === undefined) return undefined;
      const m = head.value;
      if (m.next_attempt_at > now || (m.lease_until ?? 0) > now) return undefined;
      const claimed: PendingDelivery = { ...m, lease_owner: owner, lease_until: leaseUntil };
      const res = await this.kv.atomic().check(head).set(head.key, claimed).commit();
      if (res.ok) return claimed;
    }
  }

  /** @inheritdoc */
  async settle(
    claimed: PendingDelivery,
    retry?: { at: number; error: string },
  ): Promise<boolean> {
    const key = K.outbox(claimed.endpoint, claimed.id);
    const entry = await this.kv.get<PendingDelivery>(key);
    const m = entry.value;
    if (
      m === null || m.lease_owner !== claimed.lease_owner || m.lease_until !== claimed.lease_until
    ) return false;
    const op = this.kv.atomic().check(entry);
    if (retry === undefined) {
      op.delete(key);
    } else {
      const { lease_owner: _o, lease_until: _u, ...rest } = m;
      op.set(
        key,
        {
          ...rest,
          attempts: m.attempts + 1,
          next_attempt_at: retry.at,
          last_error: retry.error,
        } satisfies PendingDelivery,
      );
    }
    return (await op.commit()).ok;
  }

  /** @inheritdoc */
  async pending(endpoint: string, limit: number): Promise<PendingDelivery[]> {
    const out: PendingDelivery[] = [];
    const it = this.kv.list<PendingDelivery>({ prefix: K.outboxOf(endpoint) }, { limit });
    for await (const e of it) out.push(e.value);
    return out;
  }

  async #head(endpoint: string): Promise<Deno.KvEntry<PendingDelivery> | undefined> {
    const it = this.kv.list<PendingDelivery>({ prefix: K.outboxOf(endpoint) }, { limit: 1 });
    for await (const e of it) return e;
    return undefined;
  }
}
