/**
 * A user record for tests that write users through the store directly (no sign-in).
 *
 * @module
 */
import type { UserRecord } from "../../server/store/users.ts";

/**
 * User `n`: a well-formed `usr_` id, provider `idp`, external id `e<n>`, `u<n>@example.com`,
 * active, created and updated at `now`.
 *
 * @param n distinguishes users (ids sort by it)
 * @param now creation time (ms)
 * @param over fields to replace
 * @returns the record
 *
 * @example
 * ```ts
 * testUser(1, 0).id; // "usr_00000000000000000000000001"
 * ```
 */
export function testUser(n: number, now: number, over: Partial<UserRecord> = {}): UserRecord {
  return {
    id: `usr_${String(n).padStart(26, "0")}`,
    provider: "idp",
    external_id: `e${n}`,
    email: `u${n}@example.com`,
    display_name: `User ${n}`,
    status: "active",
    metadata: {},
    claims: {},
    created_at: now,
    updated_at: now,
    ...over,
  };
}
