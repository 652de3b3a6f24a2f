import type { Clock } from "@org/shared";
import type { AuditRecord } from "./audit.ts";
import type {
  DeliveryAttempt,
  DeliveryQuery,
  DeliveryRecord,
  OutboxStore,
  PendingDelivery,
  Redelivery,
  Settlement,
} from "./outbox.ts";
import type { SideRecord } from "./side_records.ts";
import { isAuditRecord } from "./side_records.ts";
import { expireIn, K } from "./kv_keys.ts";
import { queueAudit } from "./kv_audit.ts";
import { queued, requeued, settledRecord } from "./delivery_records.ts";

/**
 * Adds `records` to the atomic operation `op`, so they commit with the change it makes (or
 * not at all): each webhook message to its endpoint's queue, due at once with no attempt made,
 * with its delivery record; each audit record to the trail.
 */
export function queueOutbox(
  op: Deno.AtomicOperation,
  records: readonly SideRecord[] | undefined,
): Deno.AtomicOperation {
  for (const r of records ?? []) {
    if (isAuditRecord(r)) {
      queueAudit(op, r);
      continue;
    }
    const [delivery, pending] = queued(r);
    op.check({ key: K.outbox(r.endpoint, r.id), versionstamp: null })
      .set(K.outbox(r.endpoint, r.id), pending)
      .check({ key: K.delivery(r.id, r.endpoint), versionstamp: null })
      .set(K.delivery(r.id, r.endpoint), delivery);
  }
  return op;
}

/**
 * {@linkcode OutboxStore} on Deno KV: one entry per (endpoint, message id), so a prefix listing
 * yields an endpoint's queue in send order; claims and settlements are versionstamp-checked.
 * Delivery records live under (message id, endpoint), so the listing reads them newest first
 * across endpoints.
 */
export class KvOutboxStore implements OutboxStore {
  /** @param kv an opened Deno KV @param clock the time source for `expireIn` */
  constructor(private readonly kv: Deno.Kv, private readonly clock: Clock) {}

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
    attempt: DeliveryAttempt,
    settlement: Settlement,
  ): Promise<boolean> {
    const key = K.outbox(claimed.endpoint, claimed.id);
    const dkey = K.delivery(claimed.id, claimed.endpoint);
    const [entry, dentry] = await this.kv.getMany<[PendingDelivery, DeliveryRecord]>([key, dkey]);
    const m = entry.value;
    if (
      m === null || m.lease_owner !== claimed.lease_owner || m.lease_until !== claimed.lease_until
    ) return false;
    const op = this.kv.atomic().check(entry).check(dentry);
    const record = settledRecord(m, dentry.value, attempt, settlement);
    if ("retry_at" in settlement) {
      const { lease_owner: _o, lease_until: _u, ...rest } = m;
      op.set(
        key,
        {
          ...rest,
          attempts: m.attempts + 1,
          next_attempt_at: settlement.retry_at,
          last_error: attempt.error ?? "",
        } satisfies PendingDelivery,
      ).set(dkey, record);
    } else {
      op.delete(key).set(dkey, record, {
        expireIn: expireIn(settlement.keep_until, this.clock.now()),
      });
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

  /** @inheritdoc */
  async deliveries(q: DeliveryQuery, limit: number): Promise<DeliveryRecord[]> {
    const prefix = K.deliveriesPrefix;
    const selector: Deno.KvListSelector = q.before === undefined
      ? { prefix }
      : { start: prefix, end: K.delivery(q.before[0], q.before[1]) };
    const out: DeliveryRecord[] = [];
    for await (const e of this.kv.list<DeliveryRecord>(selector, { reverse: true })) {
      if (matchesDelivery(e.value, q)) {
        out.push(e.value);
        if (out.length === limit) break;
      }
    }
    return out;
  }

  /** @inheritdoc */
  async redeliver(
    endpoint: string,
    id: string,
    now: number,
    audit?: readonly AuditRecord[],
  ): Promise<Redelivery | undefined> {
    for (;;) {
      const entry = await this.kv.get<DeliveryRecord>(K.delivery(id, endpoint));
      const d = entry.value;
      if (d === null) return undefined;
      if (d.state === "pending") return { record: d, requeued: false };
      const [next, pending] = requeued(d, now);
      const op = queueOutbox(this.kv.atomic(), audit).check(entry)
        .check({ key: K.outbox(endpoint, id), versionstamp: null })
        .set(K.outbox(endpoint, id), pending)
        .set(entry.key, next);
      if ((await op.commit()).ok) return { record: next, requeued: true };
    }
  }

  async #head(endpoint: string): Promise<Deno.KvEntry<PendingDelivery> | undefined> {
    const it = this.kv.list<PendingDelivery>({ prefix: K.outboxOf(endpoint) }, { limit: 1 });
    for await (const e of it) return e;
    return undefined;
  }
}

/** True when `d` matches the filters of `q` (its cursor aside). */
function matchesDelivery(d: DeliveryRecord, q: DeliveryQuery): boolean {
  return (q.endpoint === undefined || d.endpoint === q.endpoint) &&
    (q.type === undefined || d.type === q.type) &&
    (q.state === undefined || d.state === q.state);
}

/**
 * The sweep's share on Deno KV (`kv_housekeeping.ts`): deletes up to `limit` delivered or
 * failed records past their `expires_at`, oldest message first; stops at the first such record
 * still kept (pending ones are passed over).
 *
 * @returns how many were deleted
 */
export async function sweepDeliveries(kv: Deno.Kv, now: number, limit: number): Promise<number> {
  let deleted = 0;
  for await (const e of kv.list<DeliveryRecord>({ prefix: K.deliveriesPrefix })) {
    if (deleted >= limit) break;
    const expires = e.value.expires_at;
    if (e.value.state === "pending" || expires === undefined) continue;
    if (expires > now) break;
    if ((await kv.atomic().check(e).delete(e.key).commit()).ok) deleted++;
  }
  return deleted;
}
