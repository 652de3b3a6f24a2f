import type { IdFactory } from "../../server/store/ids.ts";
import type { UserRecord } from "../../server/store/users.ts";

/**
 * An active user record for benchmark sessions, like one a sign-in creates (one private claim).
 *
 * @param ids the id factory
 * @param now the creation time (ms)
 * @param externalId the provider identity (unique per user)
 * @param n a number for the email and display name
 */
export function benchUser(ids: IdFactory, now: number, externalId: string, n: number): UserRecord {
  return {
    id: ids.next("usr"),
    provider: "bench",
    external_id: externalId,
    email: `user-${n}@example.com`,
    display_name: `User ${n}`,
    status: "active",
    metadata: {},
    claims: { tier: "pro" },
    created_at: now,
    updated_at: now,
  };
}
