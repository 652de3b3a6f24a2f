/**
 * Finding users the way an operator asks: by id, by provider and external id (the unique
 * sign-in index), or by exact email address.
 *
 * @module
 */
import { isUserId } from "../store/ids.ts";
import type { UserRecord, UserStore } from "../store/users.ts";
import { isStorableText } from "../users/storable_text.ts";
import { USER_FIELD_LIMITS } from "../users/user_fields.ts";

/** What an operator looks a user up by. */
export type UserLookup =
  | { readonly by: "id"; readonly id: string }
  | { readonly by: "external"; readonly provider: string; readonly externalId: string }
  | { readonly by: "email"; readonly email: string };

/**
 * Users read at most by one email look-up. The store keeps no email index (an email is not
 * unique: one person may sign in through several providers), so the look-up reads users in
 * pages; past this many it stops and says so rather than read an unbounded table.
 */
export const EMAIL_SCAN_LIMIT = 10_000;

/** The users found, and whether the search covered every user. */
export interface LookupResult {
  readonly users: readonly UserRecord[];
  /** False when an email look-up stopped at {@linkcode EMAIL_SCAN_LIMIT} users. */
  readonly complete: boolean;
}

/**
 * Finds the users matching `q`. Emails compare case-insensitively, whole address only.
 *
 * @param users the user store
 * @param q what to look up
 * @param scanLimit users an email look-up reads at most (default {@linkcode EMAIL_SCAN_LIMIT})
 * @returns the matches (zero or one for `id` and `external`)
 *
 * @example
 * ```ts
 * import type { Store } from "../store/store.ts";
 *
 * const byEmail = (store: Store) => lookUpUsers(store.users, { by: "email", email: "ada@example.com" });
 * ```
 */
export async function lookUpUsers(
  users: UserStore,
  q: UserLookup,
  scanLimit = EMAIL_SCAN_LIMIT,
): Promise<LookupResult> {
  if (q.by === "id") {
    const user = isUserId(q.id) ? await users.get(q.id) : undefined;
    return { users: user ? [user] : [], complete: true };
  }
  if (q.by === "external") {
    // Values no sign-in could have stored are not looked up (nor handed to the store as keys).
    const user = q.provider.length <= USER_FIELD_LIMITS.provider &&
        q.externalId.length <= USER_FIELD_LIMITS.external_id &&
        isStorableText(q.provider) && isStorableText(q.externalId)
      ? await users.findByExternalId(q.provider, q.externalId)
      : undefined;
    return { users: user ? [user] : [], complete: true };
  }
  const wanted = q.email.trim().toLowerCase();
  const found: UserRecord[] = [];
  let after: string | undefined;
  let read = 0;
  while (read < scanLimit) {
    const want = Math.min(200, scanLimit - read);
    const page = await users.list(after, want);
    for (const u of page) if (u.email.toLowerCase() === wanted) found.push(u);
    read += page.length;
    if (page.length < want) return { users: found, complete: true };
    after = page[page.length - 1]!.id;
  }
  return { users: found, complete: (await users.list(after, 1)).length === 0 };
}
