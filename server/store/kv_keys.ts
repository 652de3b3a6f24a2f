/**
 * Key layout of the Deno KV store, in one place so every adapter and the cleanup sweep agree.
 *
 * @module
 */
/** The audit trail's indexes on Deno KV. */
export type AuditIndex = "actor" | "action" | "user";

export const K = {
  user: (id: string): Deno.KvKey => ["users", id],
  usersPrefix: ["users"] as Deno.KvKey,
  userByExternal: (provider: string, externalId: string): Deno.KvKey => [
    "users_by_external",
    provider,
    externalId,
  ],
  family: (id: string): Deno.KvKey => ["families", id],
  familyOfUser: (userId: string, familyId: string): Deno.KvKey => [
    "families_by_user",
    userId,
    familyId,
  ],
  familiesOfUserPrefix: (userId: string): Deno.KvKey => ["families_by_user", userId],
  refresh: (hash: string): Deno.KvKey => ["refresh", hash],
  familyUsed: (id: string): Deno.KvKey => ["family_used", id],
  familiesPrefix: ["families"] as Deno.KvKey,
  refreshPrefix: ["refresh"] as Deno.KvKey,
  lockout: (peer: string): Deno.KvKey => ["lockout", peer],
  keyring: ["keys", "ring"] as Deno.KvKey,
  usersByStatus: (status: string): Deno.KvKey => ["counters", "users", status],
  usersCounterPrefix: ["counters", "users"] as Deno.KvKey,
  liveSessions: ["counters", "sessions"] as Deno.KvKey,
  outbox: (endpoint: string, id: string): Deno.KvKey => ["outbox", endpoint, id],
  outboxOf: (endpoint: string): Deno.KvKey => ["outbox", endpoint],
  delivery: (id: string, endpoint: string): Deno.KvKey => ["webhook_deliveries", id, endpoint],
  deliveriesPrefix: ["webhook_deliveries"] as Deno.KvKey,
  audit: (id: string): Deno.KvKey => ["audit", id],
  auditPrefix: ["audit"] as Deno.KvKey,
  /** An index of the audit trail by actor id, action or user: the record again, by that value. */
  auditBy: (index: AuditIndex, value: string, id: string): Deno.KvKey => [
    `audit_by_${index}`,
    value,
    id,
  ],
  auditByPrefix: (index: AuditIndex, value: string): Deno.KvKey => [`audit_by_${index}`, value],
  webhookFailures: (endpoint: string): Deno.KvKey => ["webhook_failures", endpoint],
  webhookFailuresPrefix: ["webhook_failures"] as Deno.KvKey,
} as const;

/** Adds 1 to a KvU64 counter inside an atomic operation. */
export const ONE = new Deno.KvU64(1n);
/** Subtracts 1 from a KvU64 counter (sum wraps modulo 2^64). */
export const MINUS_ONE = new Deno.KvU64(0xffff_ffff_ffff_ffffn);

/** Milliseconds until `expiresAt` as a KV `expireIn`, never below one second. */
export function expireIn(expiresAt: number, now: number): number {
  return Math.max(1000, expiresAt - now);
}
