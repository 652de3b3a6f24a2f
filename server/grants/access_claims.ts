import { RESERVED_CLAIMS } from "../config/schema.ts";

/** The registered claims of one access token, decided by the issuer. */
export interface RegisteredClaims {
  readonly iss: string;
  readonly sub: string;
  readonly aud?: string | readonly string[];
  readonly iat: number;
  readonly exp: number;
  readonly jti: string;
  readonly sid: string;
  /** RFC 7800 confirmation: the DPoP key's thumbprint (RFC 9449 §6.1) for a bound token. */
  readonly cnf?: { readonly jkt: string };
}

/**
 * Builds an access token's claims: the registered claims, then `token.custom_claims` merged
 * with the user's private claims (the user's value wins on the same key). Reserved claim names
 * (`iss`, `sub`, `aud`, `exp`, `nbf`, `iat`, `jti`, `sid`, `cnf`) can never be overridden by either.
 *
 * @param registered the claims the service decides
 * @param configClaims `token.custom_claims`, its templates rendered for the user
 * @param userClaims the user's private claims
 * @returns the payload to sign
 *
 * @example
 * ```ts
 * import type { RegisteredClaims } from "./access_claims.ts";
 *
 * const claims = (reg: RegisteredClaims) =>
 *   accessTokenClaims(reg, { tier: "free", org: "a" }, { tier: "pro", sub: "evil" });
 * // { tier: "pro", org: "a", ...reg }  (sub stays reg.sub)
 * ```
 */
export function accessTokenClaims(
  registered: RegisteredClaims,
  configClaims: Readonly<Record<string, unknown>>,
  userClaims: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const source of [configClaims, userClaims]) {
    for (const [k, v] of Object.entries(source)) {
      if (!RESERVED_CLAIMS.has(k)) out[k] = v;
    }
  }
  return { ...out, ...registered };
}
