/**
 * Reading the values the service takes from a verified provider ID token, each bounded: the
 * one place a provider's claims become a user's fields.
 *
 * @module
 */
import { parseEmailAddress } from "../users/email_address.ts";
import { toStorableText } from "../users/storable_text.ts";
import { truncateText, USER_FIELD_LIMITS } from "../users/user_fields.ts";
import type { IdTokenClaims } from "./id_token.ts";

/**
 * A boolean claim as providers send it: the JSON booleans, or the strings `"true"` and
 * `"false"` (Sign in with Apple sends `email_verified` and `is_private_email` as strings).
 * Anything else (absent, `1`, `"yes"`, `"TRUE"`) is `undefined`, so a check for `true` refuses it.
 *
 * @param value the claim's value
 * @returns the boolean it states, or `undefined`
 */
export function claimBoolean(value: unknown): boolean | undefined {
  if (value === true || value === "true") return true;
  if (value === false || value === "false") return false;
  return undefined;
}

/** What sign-in takes from a provider identity, bounded to what a user record holds. */
export interface ProviderIdentity {
  /** The `email` claim when {@linkcode parseEmailAddress} accepts it; anything else is dropped. */
  readonly email: string | undefined;
  /**
   * `name`, else `preferred_username`, cut to the internal API's `display_name` cap, with NUL
   * and unpaired surrogates replaced by U+FFFD (a sign-in never fails on its name).
   */
  readonly displayName: string | undefined;
}

/**
 * The email and display name of a verified identity. `sub` and `jti` are bounded by
 * verification itself (a token whose `sub` could not be stored is refused there: replacing
 * characters of an identity key could make two identities one).
 *
 * @param claims the verified ID-token claims
 * @returns the usable email and the display name, each possibly absent
 */
export function providerIdentity(claims: IdTokenClaims): ProviderIdentity {
  const email = typeof claims.email === "string" && parseEmailAddress(claims.email)
    ? claims.email
    : undefined;
  let displayName: string | undefined;
  for (const key of ["name", "preferred_username"]) {
    const v = claims[key];
    if (typeof v === "string" && v !== "") {
      displayName = toStorableText(truncateText(v, USER_FIELD_LIMITS.display_name));
      break;
    }
  }
  return { email, displayName };
}
