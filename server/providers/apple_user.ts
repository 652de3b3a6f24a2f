import type { ProviderConfig } from "../config/schema.ts";
import { invalidRequest } from "../errors.ts";
import { truncateText, USER_FIELD_LIMITS } from "../users/user_fields.ts";

/** Longest `user` parameter accepted: Apple's JSON with a long name and email is well under 1 kB. */
export const MAX_APPLE_USER_CHARS = 2048;

/** Longest first or last name accepted. */
const MAX_NAME_PART_CHARS = 256;

/** Control characters (C0, DEL, C1): never part of a name. */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const REFUSAL = 'Parameter user must be Apple\'s JSON: {"name":{"firstName":…,"lastName":…},' +
  '"email":…} (strings, at most 2048 characters in all)';

/**
 * The display name in the `user` field Sign in with Apple hands the app, once, with the
 * authorization response of the user's first sign-in:
 * `{"name":{"firstName":"Jane","lastName":"Appleseed"},"email":"…"}`. Apple puts the name
 * nowhere else (not in the ID token), so the app forwards it to us.
 *
 * Validated strictly, because nothing else vouches for it: at most
 * {@linkcode MAX_APPLE_USER_CHARS} characters of JSON, an object whose `name` (optional) is an
 * object of optional string `firstName`/`middleName`/`lastName` (each at most 256 characters,
 * no control characters), and whose `email` (optional) is a string. The email is not used: the
 * ID token's is the verified one.
 *
 * @param raw the `user` parameter
 * @returns "first middle last" (the parts given, trimmed, cut to the `display_name` cap), or
 *   `undefined` when the JSON names no one
 * @throws {OAuthError} 400 `invalid_request` when it is not such JSON
 */
export function appleUserDisplayName(raw: string): string | undefined {
  if (raw.length > MAX_APPLE_USER_CHARS) throw invalidRequest(REFUSAL);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw invalidRequest(REFUSAL);
  }
  if (!isObject(value)) throw invalidRequest(REFUSAL);
  if (value.email !== undefined && typeof value.email !== "string") throw invalidRequest(REFUSAL);
  const name = value.name;
  if (name === undefined) return undefined;
  if (!isObject(name)) throw invalidRequest(REFUSAL);
  const parts: string[] = [];
  for (const key of ["firstName", "middleName", "lastName"]) {
    const part = name[key];
    if (part === undefined || part === null) continue;
    if (typeof part !== "string" || part.length > MAX_NAME_PART_CHARS || CONTROL.test(part)) {
      throw invalidRequest(REFUSAL);
    }
    if (part.trim() !== "") parts.push(part.trim());
  }
  return parts.length === 0
    ? undefined
    : truncateText(parts.join(" "), USER_FIELD_LIMITS.display_name);
}

/**
 * The display name from the optional `user` parameter of a sign-in through `provider`
 * ({@linkcode appleUserDisplayName}); read before anything is sent to the provider, so a bad
 * one costs no code.
 *
 * @param params the request's parameters
 * @param provider the provider's config
 * @returns the name, or `undefined` without a `user` parameter (or one naming no one)
 * @throws {OAuthError} 400 `invalid_request` for a `user` parameter to a provider that is not
 *   configured as Sign in with Apple (`[providers.<name>.apple_client_secret]`), or a malformed one
 */
export function appleUserParam(
  params: ReadonlyMap<string, string>,
  provider: ProviderConfig,
): string | undefined {
  const raw = params.get("user");
  if (raw === undefined) return undefined;
  if (provider.client_secret.kind !== "apple") {
    throw invalidRequest(
      "Parameter user applies only to a Sign in with Apple provider (apple_client_secret)",
    );
  }
  return appleUserDisplayName(raw);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
