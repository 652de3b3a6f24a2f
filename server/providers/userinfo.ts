/**
 * Completing a code exchange's ID token from the provider's UserInfo response: a conforming
 * provider (OpenID Core §5.4) returns the `email` and `profile` claims from UserInfo, not in
 * the ID token, whenever it also issues an access token.
 *
 * @module
 */
import type { IdTokenClaims } from "./id_token.ts";

/** The claims sign-in reads besides `sub` (see `providerIdentity` and the registration policy). */
const PROFILE_CLAIMS = ["email", "email_verified", "name", "preferred_username"] as const;

/**
 * True when the ID token lacks what sign-in uses and UserInfo could supply: an `email`, or
 * any display name (`name`, `preferred_username`).
 *
 * @param claims the verified ID-token claims
 */
export function lacksProfileClaims(claims: IdTokenClaims): boolean {
  return claims.email === undefined ||
    (claims.name === undefined && claims.preferred_username === undefined);
}

/**
 * The ID token's claims with the profile claims it lacks taken from a UserInfo response. The
 * ID token's own values always win, and nothing else is copied (`sub`, `iss`, `aud` stay the
 * verified token's). OpenID Core §5.3.2: a response whose `sub` is not the ID token's MUST
 * NOT be used.
 *
 * @param claims the verified ID-token claims
 * @param userinfo the UserInfo response body
 * @returns the completed claims, or `undefined` when the response names another subject
 *
 * @example
 * ```ts
 * completeFromUserinfo({ sub: "a", iat: 1 }, { sub: "a", email: "a@x.example" });
 * // { sub: "a", iat: 1, email: "a@x.example" }
 * ```
 */
export function completeFromUserinfo(
  claims: IdTokenClaims,
  userinfo: Readonly<Record<string, unknown>>,
): IdTokenClaims | undefined {
  if (userinfo.sub !== claims.sub) return undefined;
  const added: Record<string, unknown> = {};
  for (const key of PROFILE_CLAIMS) {
    if (claims[key] === undefined && userinfo[key] !== undefined) added[key] = userinfo[key];
  }
  return { ...claims, ...added };
}
