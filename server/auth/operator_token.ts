/**
 * Operator tokens: short-lived JWTs signed by the service's own key manager that open the
 * internal API (`internal_api.auth_methods = ["operator_token"]`). Minted by the
 * `operator-token` CLI subcommand.
 *
 * @module
 */
import { base64url, type Random } from "@org/shared";
import type { KeyManager } from "../keys/key_manager.ts";

/**
 * The JWT header `typ` of operator tokens. Access tokens carry `JWT`; each kind of token is
 * verified only with its own `typ`, so neither can ever pass as the other (RFC 8725 §3.11).
 */
export const OPERATOR_TOKEN_TYP = "operator+jwt";

/** What an operator token must carry (`internal_api.operator_token` plus our issuer). */
export interface OperatorTokenRules {
  readonly issuer: string;
  /** `internal_api.operator_token.audience`. */
  readonly audience: string;
  /** `internal_api.operator_token.required_claim`: must be present and truthy. */
  readonly requiredClaim: string;
}

/**
 * Signs an operator token for `subject`, valid for `ttlSeconds` from `nowSeconds`, with header
 * `typ` {@linkcode OPERATOR_TOKEN_TYP}.
 *
 * @param sign a signer taking the header `typ` (`(c, typ) => keys.sign(c, typ)`, or `jwtSigner`
 *   of the loaded key)
 * @param rules issuer, audience and required claim
 * @param subject the operator's name (`sub`, shown in audit log lines)
 * @param ttlSeconds lifetime in seconds
 * @param nowSeconds `iat`
 * @param random source of the `jti`
 * @returns the compact JWT
 *
 * @example
 * ```ts
 * import { type Clock, cryptoRandom, epochSeconds } from "@org/shared";
 * import type { KeyManager } from "../keys/key_manager.ts";
 * import type { OperatorTokenRules } from "./operator_token.ts";
 *
 * const mint = (keys: KeyManager, rules: OperatorTokenRules, clock: Clock) =>
 *   mintOperatorToken((c, typ) => keys.sign(c, typ), rules, "alice", 3600, epochSeconds(clock), cryptoRandom);
 * ```
 */
export function mintOperatorToken(
  sign: (claims: object, typ: string) => string,
  rules: OperatorTokenRules,
  subject: string,
  ttlSeconds: number,
  nowSeconds: number,
  random: Random,
): string {
  return sign({
    iss: rules.issuer,
    sub: subject,
    aud: rules.audience,
    iat: nowSeconds,
    exp: nowSeconds + ttlSeconds,
    jti: base64url(random.bytes(16)),
    [rules.requiredClaim]: true,
  }, OPERATOR_TOKEN_TYP);
}

/**
 * Verifies an operator token: header `typ` {@linkcode OPERATOR_TOKEN_TYP} (so an access
 * token, typed `JWT`, never passes), signature by one of our published keys, `iss`, `aud`, `exp`
 * (against the injected clock), a non-empty `sub`, the required claim truthy, and no `sid`
 * (an access token, which always has one, is never an operator token even when per-user
 * claims happen to carry the required claim).
 *
 * @param keys our key manager
 * @param token the presented bearer token
 * @param rules issuer, audience and required claim
 * @param now the current time (ms)
 * @returns the operator's `sub`, or `undefined` when the token is not a valid operator token
 */
export async function verifyOperatorToken(
  keys: Pick<KeyManager, "verify">,
  token: string,
  rules: OperatorTokenRules,
  now: number,
): Promise<string | undefined> {
  if (token.split(".").length !== 3) return undefined;
  try {
    const payload = await keys.verify(token, {
      typ: OPERATOR_TOKEN_TYP,
      issuer: rules.issuer,
      audience: rules.audience,
      currentDate: new Date(now),
    });
    if (typeof payload.sub !== "string" || payload.sub === "") return undefined;
    if (!payload[rules.requiredClaim] || payload.sid !== undefined) return undefined;
    return payload.sub;
  } catch {
    return undefined;
  }
}
