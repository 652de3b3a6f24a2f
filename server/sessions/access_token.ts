import { decodeJwt, type JWTPayload } from "jose";
import type { ServiceDeps } from "../deps.ts";

/** The claims of one of our access tokens that name its session. */
export interface AccessTokenClaims extends JWTPayload {
  readonly sub: string;
  readonly sid: string;
}

/**
 * Reads one of our access tokens: header `typ: "JWT"` (so an operator token, `operator+jwt`,
 * never passes), signed by a published key, `iss` our issuer, carrying `sub` and `sid`.
 *
 * @param deps keys and config
 * @param token the presented token (anything: garbage is simply not ours)
 * @param at the time to check `exp` against (ms), or `"issued"` to check it as of the token's
 *   own `iat`, so an expired token is still recognised (revocation)
 * @returns the claims, or `undefined` when the token is not a valid access token of ours
 */
export async function verifyAccessToken(
  deps: Pick<ServiceDeps, "keys" | "config">,
  token: string,
  at: number | "issued",
): Promise<AccessTokenClaims | undefined> {
  if (token.split(".").length !== 3) return undefined;
  let when = at;
  if (when === "issued") {
    let iat: unknown;
    try {
      iat = decodeJwt(token).iat;
    } catch {
      return undefined;
    }
    if (typeof iat !== "number") return undefined;
    when = iat * 1000;
  }
  let payload: JWTPayload;
  try {
    payload = await deps.keys.verify(token, {
      typ: "JWT",
      issuer: deps.config.server.issuer,
      currentDate: new Date(when),
    });
  } catch {
    // Bad signature, unknown (or retired) key, wrong typ or issuer, expired: not ours to honour.
    return undefined;
  }
  return typeof payload.sub === "string" && typeof payload.sid === "string"
    ? payload as AccessTokenClaims
    : undefined;
}
