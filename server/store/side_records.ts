/**
 * What a write commits beside its change (webhook messages, audit records), shared by the stores whose writes report themselves.
 *
 * @module
 */
import type { AuditRecord } from "./audit.ts";
import type { OutboxMessage } from "./outbox.ts";

/** What a write commits beside its change: webhook messages and audit records. */
export type SideRecord = OutboxMessage | AuditRecord;

/** True when `r` is an audit record (else it is an outbox message). */
export function isAuditRecord(r: SideRecord): r is AuditRecord {
  return "action" in r;
}

/**
 * Records a write also commits: built from the record(s) the write changed, so the caller
 * can name what actually changed (a revocation that did not happen reports nothing).
 */
export type OutboxFor<T extends unknown[]> = (...changed: T) => readonly SideRecord[];
