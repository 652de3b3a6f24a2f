import type { AuditQuery, AuditRecord, AuditStore } from "./audit.ts";
import { firstIdAt } from "./ids.ts";
import { type AuditIndex, expireIn, K } from "./kv_keys.ts";
import { AtomicBatches } from "./kv_chunks.ts";

/** Every key an audit record is kept under: the record, and its actor, action and user indexes. */
function auditKeys(r: AuditRecord): Deno.KvKey[] {
  const keys = [
    K.audit(r.id),
    K.auditBy("actor", r.actor.id, r.id),
    K.auditBy("action", r.action, r.id),
  ];
  if (r.user !== undefined) keys.push(K.auditBy("user", r.user, r.id));
  return keys;
}

/**
 * Adds the audit record `r` to the atomic operation `op`, so it commits with the change it
 * reports. Each key also carries `expireIn`, so KV drops it by itself should no sweep run. No
 * check: ids are unique ULIDs, and a commit has only 100 checks for the change itself.
 */
export function queueAudit(op: Deno.AtomicOperation, r: AuditRecord): Deno.AtomicOperation {
  for (const key of auditKeys(r)) op.set(key, r, { expireIn: expireIn(r.expires_at, r.at) });
  return op;
}

/** Most audit records the sweep deletes per atomic commit (4 keys each: 400 mutations). */
const SWEEP_BATCH = 100;

/**
 * {@linkcode AuditStore} on Deno KV: each record under its id (ULID: time order) and again under
 * its actor, action and user, so a filtered listing reads only the records of that value; a
 * time range is a key range of ids.
 */
export class KvAuditStore implements AuditStore {
  /** @param kv an opened Deno KV */
  constructor(private readonly kv: Deno.Kv) {}

  /** @inheritdoc */
  async append(records: readonly AuditRecord[]): Promise<void> {
    const op = this.kv.atomic();
    for (const r of records) queueAudit(op, r);
    await op.commit();
  }

  /** @inheritdoc */
  async list(q: AuditQuery, limit: number): Promise<AuditRecord[]> {
    // The most selective index the query names; the other filters are applied to what it yields.
    const [index, value]: [AuditIndex | undefined, string | undefined] = q.user !== undefined
      ? ["user", q.user]
      : q.actor !== undefined
      ? ["actor", q.actor]
      : q.action !== undefined
      ? ["action", q.action]
      : [undefined, undefined];
    const prefix = index === undefined ? K.auditPrefix : K.auditByPrefix(index, value!);
    let high = q.to === undefined ? undefined : firstIdAt("aud", q.to);
    if (q.before !== undefined && (high === undefined || q.before < high)) high = q.before;
    const low = q.from === undefined ? undefined : firstIdAt("aud", q.from);
    const selector: Deno.KvListSelector = low === undefined && high === undefined ? { prefix } : {
      start: [...prefix, low ?? ""],
      end: high === undefined ? [...prefix, "\uffff"] : [...prefix, high],
    };
    const out: AuditRecord[] = [];
    for await (const e of this.kv.list<AuditRecord>(selector, { reverse: true })) {
      const r = e.value;
      if (
        (q.actor === undefined || r.actor.id === q.actor) &&
        (q.action === undefined || r.action === q.action) &&
        (q.user === undefined || r.user === q.user) &&
        (q.from === undefined || r.at >= q.from) &&
        (q.to === undefined || r.at < q.to)
      ) {
        out.push(r);
        if (out.length === limit) break;
      }
    }
    return out;
  }
}

/**
 * The sweep's share on Deno KV (`kv_housekeeping.ts`): deletes up to `limit` audit records
 * past their `expires_at`, oldest first; stops at the first record still kept (records expire
 * in id order while `audit.retention` is unchanged).
 *
 * @returns how many were deleted
 */
export async function sweepAudit(kv: Deno.Kv, now: number, limit: number): Promise<number> {
  let deleted = 0;
  const batches = new AtomicBatches(kv, SWEEP_BATCH);
  for await (const e of kv.list<AuditRecord>({ prefix: K.auditPrefix })) {
    if (deleted >= limit || e.value.expires_at > now) break;
    await batches.add((op) => {
      for (const key of auditKeys(e.value)) op.delete(key);
    });
    deleted++;
  }
  await batches.flush();
  return deleted;
}
