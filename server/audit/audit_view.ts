/**
 * An audit record as operators see it (`GET /internal/audit`, the console).
 *
 * @module
 */
import type { Actor, AuditRecord } from "../store/audit.ts";

/** One audit record as operators see it. */
export interface AuditView {
  /** `aud_…`. */
  readonly id: string;
  /** ISO 8601 (UTC). */
  readonly at: string;
  readonly actor: Actor;
  readonly action: string;
  /** The user concerned, or `null`. */
  readonly user: string | null;
  readonly details: Readonly<Record<string, unknown>>;
}

/** `r` as operators see it. */
export function auditView(r: AuditRecord): AuditView {
  return {
    id: r.id,
    at: new Date(r.at).toISOString(),
    actor: r.actor,
    action: r.action,
    user: r.user ?? null,
    details: r.details,
  };
}
