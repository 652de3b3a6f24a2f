import { errors, type JWTPayload, jwtVerify, type JWTVerifyGetKey } from "jose";
import { OAuthError } from "../errors.ts";
import { isStorableText } from "../users/storable_text.ts";
import { PROVIDER_CLAIM_LIMITS } from "./claim_limits.ts";

/**
 * How an ID token failed: `malformed` (not a parseable JWT), `expired` (past `exp`), or
 * `invalid` (any other check: signature, `iss`, `aud`, `azp`, `iat` age, …).
 */
export type IdTokenFailure = "malformed" | "expired" | "invalid";

/** Why a provider ID token was refused; the caller decides what the client sees. */
export class IdTokenInvalid extends Error {
  override name = "IdTokenInvalid";
  /**
   * @param message what failed (safe to log)
   * @param kind the class of failure (default `invalid`)
   * @param options the underlying error
   */
  constructor(
    message: string,
    readonly kind: IdTokenFailure = "invalid",
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** jose error codes meaning "this is not a parseable JWS/JWT". */
const MALFORMED_CODES: ReadonlySet<string> = new Set(["ERR_JWS_INVALID", "ERR_JWT_INVALID"]);

/**
 * Classifies a jose error: undecodable → `malformed`; past `exp` → `expired` (an `iat` older
 * than the maximum age is also a jose `ERR_JWT_EXPIRED`, but on claim `iat`: `invalid`).
 */
function failureOf(err: InstanceType<typeof errors.JOSEError>): IdTokenFailure {
  if (MALFORMED_CODES.has(err.code)) return "malformed";
  if (err instanceof errors.JWTExpired && err.claim === "exp") return "expired";
  return "invalid";
}

/** Asymmetric algorithms accepted from providers (never `none` or HMAC). */
export const PROVIDER_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/** Default clock skew (seconds) allowed on `exp`, `iat` and `nbf` of provider ID tokens. */
export const ID_TOKEN_CLOCK_SKEW = 60;

/** What an ID token must satisfy. */
export interface IdTokenExpectations {
  readonly issuer: string;
  readonly clientId: string;
  readonly now: number;
  /** Allowed clock skew in seconds for `exp`, `iat`, `nbf` (default 60). */
  readonly clockSkew?: number;
  /** Oldest acceptable `iat`, seconds before now (ID-token grant); unset = no limit. */
  readonly maxAge?: number;
}

/** The claims of a verified ID token the service relies on. */
export interface IdTokenClaims extends JWTPayload {
  readonly sub: string;
  readonly iat: number;
}

/**
 * Verifies a provider ID token: signature by the provider's keys (asymmetric algorithms only),
 * `iss`, `aud` containing our client id (and `azp` equal to it when there are several
 * audiences), `exp`, `iat` present and not in the future, `sub` present, and `sub` and `jti`
 * within {@linkcode PROVIDER_CLAIM_LIMITS} and {@linkcode isStorableText} (an identity the store
 * could not key is refused here,
 * so no grant ever fails on writing it). `nonce` is not looked at here.
 *
 * @param token the compact JWT
 * @param getKey the provider's key resolver ({@linkcode JwksCache.getKey})
 * @param expect issuer, client id, current time, skew and maximum age
 * @returns the verified claims
 * @throws {IdTokenInvalid} when the token fails any check; {OAuthError} when keys cannot be fetched
 */
export async function verifyIdToken(
  token: string,
  getKey: JWTVerifyGetKey,
  expect: IdTokenExpectations,
): Promise<IdTokenClaims> {
  const skew = expect.clockSkew ?? ID_TOKEN_CLOCK_SKEW;
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, getKey, {
      issuer: expect.issuer,
      audience: expect.clientId,
      algorithms: PROVIDER_ALGORITHMS,
      currentDate: new Date(expect.now),
      clockTolerance: skew,
      requiredClaims: ["sub", "iat", "exp"],
      ...(expect.maxAge === undefined ? {} : { maxTokenAge: expect.maxAge }),
    }));
  } catch (err) {
    if (err instanceof OAuthError) throw err;
    if (err instanceof errors.JOSEError) {
      throw new IdTokenInvalid(`${err.code}: ${err.message}`, failureOf(err), { cause: err });
    }
    // jose reports undecodable segments as its own errors; anything else thrown while
    // decoding (a TypeError, a SyntaxError) still means the token could not be read.
    if (err instanceof TypeError || err instanceof SyntaxError) {
      throw new IdTokenInvalid(`undecodable token: ${err.message}`, "malformed", { cause: err });
    }
    throw err;
  }
  const nowSeconds = Math.floor(expect.now / 1000);
  if (typeof payload.iat !== "number" || payload.iat > nowSeconds + skew) {
    throw new IdTokenInvalid("iat is in the future");
  }
  if (typeof payload.sub !== "string" || payload.sub === "") {
    throw new IdTokenInvalid("sub is missing");
  }
  if (payload.sub.length > PROVIDER_CLAIM_LIMITS.sub) {
    throw new IdTokenInvalid(`sub is longer than ${PROVIDER_CLAIM_LIMITS.sub} characters`);
  }
  if (typeof payload.jti === "string" && payload.jti.length > PROVIDER_CLAIM_LIMITS.jti) {
    throw new IdTokenInvalid(`jti is longer than ${PROVIDER_CLAIM_LIMITS.jti} characters`);
  }
  // Both key store records; replacing characters could make two identities one, so refuse.
  if (
    !isStorableText(payload.sub) ||
    (typeof payload.jti === "string" && !isStorableText(payload.jti))
  ) {
    throw new IdTokenInvalid("sub or jti contains NUL or an unpaired surrogate");
  }
  if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== expect.clientId) {
    throw new IdTokenInvalid("azp does not name our client id");
  }
  return payload as IdTokenClaims;
}
