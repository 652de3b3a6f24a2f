/**
 * The one projection of a stored user to JSON: the internal API's and the console's full user
 * object, and the webhook events' summary of it (the same fields less claims and metadata).
 *
 * @module
 */
import type { UserRecord } from "../store/users.ts";

/** The full user object the internal API answers with (see `docs/http-api.md`). */
export interface UserView {
  readonly id: string;
  readonly external_id: string;
  readonly provider: string;
  readonly email: string;
  readonly display_name: string;
  readonly status: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly claims: Readonly<Record<string, unknown>>;
  /** ISO 8601 (UTC). */
  readonly created_at: string;
  /** ISO 8601 (UTC). */
  readonly updated_at: string;
}

/**
 * The JSON shape of a stored user: every field, timestamps as ISO 8601 strings.
 *
 * @param user the stored record
 * @returns the user object
 */
export function userView(user: UserRecord): UserView {
  return {
    id: user.id,
    external_id: user.external_id,
    provider: user.provider,
    email: user.email,
    display_name: user.display_name,
    status: user.status,
    metadata: user.metadata,
    claims: user.claims,
    created_at: new Date(user.created_at).toISOString(),
    updated_at: new Date(user.updated_at).toISOString(),
  };
}

/** The user as webhook events show it: identity and status, never claims or metadata. */
export type UserSummary = Omit<UserView, "metadata" | "claims">;

/**
 * The user as webhook events show it ({@linkcode userView} less claims and metadata), so an
 * event never carries what the operator keeps private.
 *
 * @param user the stored record
 * @returns the summary
 */
export function userSummary(user: UserRecord): UserSummary {
  const { metadata: _metadata, claims: _claims, ...summary } = userView(user);
  return summary;
}

/**
 * What names a user to an operator (pure): the email, else the display name, else the id. A
 * user signed in through a provider that shares no email (or no name) must still have a link
 * in the console's list and a heading on its page.
 *
 * @param user the user
 * @returns the first of email, display name and id that is not blank
 *
 * @example
 * ```ts
 * userLabel({ email: "", display_name: "", id: "01J9" }); // "01J9"
 * ```
 */
export function userLabel(user: Pick<UserView, "email" | "display_name" | "id">): string {
  return user.email.trim() || user.display_name.trim() || user.id;
}
