import type { Housekeeping } from "./housekeeping.ts";
import type { RefreshRecord, SessionFamily } from "./sessions.ts";
import { SWEEP_LIMIT } from "./housekeeping.ts";
import { K, MINUS_ONE } from "./kv_keys.ts";
import { sweepAudit } from "./kv_audit.ts";
import { AtomicBatches, KV_ATOMIC_MAX_CHECKS } from "./kv_chunks.ts";
import { sweepDeliveries } from "./kv_outbox.ts";

/** Refresh-record deletions per atomic commit in the sweep: one check each. */
const SWEEP_BATCH = KV_ATOMIC_MAX_CHECKS;

/**
 * {@linkcode Housekeeping} on Deno KV. Audit records and settled webhook deliveries go at their
 * `expires_at` (`kv_audit.ts`, `kv_outbox.ts`). Nonces, used-ID-token markers, rate-limit windows and
 * lockout records carry `expireIn` and go by themselves; session families are kept past their
 * end (`FAMILY_RETENTION_MS` in `kv_sessions.ts`) so the sweep sees them end and keeps the
 * live-session counter exact, and refresh records are deleted here as well to hurry along what
 * KV would expire later.
 */
export class KvHousekeeping implements Housekeeping {
  /** @param kv an opened Deno KV */
  constructor(private readonly kv: Deno.Kv) {}

  /** @inheritdoc */
  async sweepExpired(now: number, limit = SWEEP_LIMIT): Promise<number> {
    let deleted = 0;
    for await (const e of this.kv.list<SessionFamily>({ prefix: K.familiesPrefix })) {
      if (deleted >= limit) break;
      const family = e.value;
      if (family.expires_at > now) continue;
      const op = this.kv.atomic().check(e)
        .delete(e.key)
        .delete(K.familyOfUser(family.user_id, family.id));
      // A revoked family already left the live count when it was revoked.
      if (!family.revoked) op.sum(K.liveSessions, MINUS_ONE.value);
      // A concurrent revocation changed it: the next sweep deletes it.
      if ((await op.commit()).ok) deleted++;
    }
    // Refresh records end no later than their family; they are keyed by token hash, so they
    // are found by a scan here rather than by an index the hot path would have to maintain.
    // KV also expires them on its own at their end, so this only hurries that along.
    const batches = new AtomicBatches(this.kv, SWEEP_BATCH);
    let records = 0;
    for await (const e of this.kv.list<RefreshRecord>({ prefix: K.refreshPrefix })) {
      if (records >= limit) break;
      if (e.value.expires_at > now) continue;
      await batches.add((op) => op.check(e).delete(e.key));
      records++;
    }
    await batches.flush();
    // Audit records and settled deliveries also carry `expireIn`; this keeps their retention
    // exact to the sweep rather than to KV's own, lazier expiry.
    await sweepAudit(this.kv, now, limit);
    await sweepDeliveries(this.kv, now, limit);
    return deleted;
  }
}
