/**
 * The bounds on provider claims, a leaf both the claim readers (`claims.ts`) and the ID-token
 * check (`id_token.ts`) can import without importing each other.
 *
 * @module
 */
import { USER_FIELD_LIMITS } from "../users/user_fields.ts";

/**
 * Longest `sub` and `jti` (UTF-16 code units) accepted from a provider: `sub` is the user's
 * `external_id` (the internal API's cap, and part of a store key), `jti` keys the replay marker.
 * A longer value fails verification (`invalid_grant` for a presented ID token, 502 for the
 * code exchange's).
 */
export const PROVIDER_CLAIM_LIMITS = {
  sub: USER_FIELD_LIMITS.external_id,
  jti: 255,
} as const;
