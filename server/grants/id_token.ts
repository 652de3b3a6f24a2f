import { decodeProtectedHeader } from "jose";
import { clip, invalidGrant, invalidRequest } from "../errors.ts";
import { ID_TOKEN_CLOCK_SKEW, type IdTokenClaims, IdTokenInvalid } from "../providers/id_token.ts";
import { tokenHash } from "../sessions/opaque_token.ts";
import type { AssertionMark, RedeemOutcome } from "../store/nonces.ts";
import { appleUserParam } from "../providers/apple_user.ts";
import { atHashMatches } from "./at_hash.ts";
import type { ProofBinding } from "../dpop/token_proof.ts";
import type { GrantContext } from "./grant.ts";
import type { TokenResponse } from "./issue_tokens.ts";
import { nonceLookupHashes } from "./nonce.ts";
import { requireParam } from "./params.ts";
import { signIn } from "./sign_in.ts";
import type { SignInDevice } from "../sessions/sign_in_device.ts";

/**
 * `grant_type=id_token` (`provider`, `id_token`, optional `provider_access_token`), served only
 * when `grants.id_token` is true: signs a user in from a provider ID token presented directly.
 *
 * Order: verify the token (provider JWKS, `iss`, `aud`, `azp`, `exp`, `iat` not in the future
 * and not older than `grants.id_token_max_age`); when `provider_access_token` is given, require
 * a matching `at_hash`; then, in one atomic store step, refuse an ID token already redeemed,
 * consume the nonce its `nonce` claim names (see {@linkcode nonceLookupHashes}) and mark the
 * token redeemed until its `exp`; then the same provisioning, registration policy and session
 * start as the code exchange.
 *
 * Errors: missing parameter, empty `provider_access_token` or unknown provider →
 * `invalid_request`; an ID token failing any check (not a parseable JWT, signature, `iss`,
 * `aud`, `azp`, `exp`, `nbf`, `iat`, claim bounds) → 400 `invalid_grant` with the one
 * description {@linkcode INVALID_ID_TOKEN}: a refused assertion is `invalid_grant` (RFC 7521
 * §5.2), and which check failed goes to the log only, so a prober learns nothing (not even
 * whether a `kid` exists at the provider); its `at_hash`, its nonce or a replay failing →
 * `invalid_grant`; policy → `access_denied`; provider keys unavailable → 502/504 `server_error`.
 *
 * @param params the request parameters
 * @param ctx the grant context
 * @returns the full token response
 */
export async function idTokenGrant(
  params: ReadonlyMap<string, string>,
  ctx: GrantContext,
  proof?: ProofBinding,
  device?: () => SignInDevice,
): Promise<TokenResponse> {
  return await redeemIdToken(ctx, params, requireParam(params, "id_token"), proof, device);
}

/**
 * The RFC 8693 token-exchange type of a provider ID token: the only `subject_token_type` the
 * token-exchange grant accepts.
 */
export const ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token";

/** The RFC 8693 type of what the token-exchange grant issues: our access token. */
export const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

/**
 * `grant_type=urn:ietf:params:oauth:grant-type:token-exchange` (RFC 8693) with
 * `subject_token_type=urn:ietf:params:oauth:token-type:id_token`: the ID-token grant in its
 * standard form, served under the same switch `grants.id_token`. `subject_token` is the
 * provider's ID token; `provider` and `provider_access_token` mean what they mean there, and
 * every check, the nonce rule included, is the same ({@linkcode idTokenGrant}). The answer adds
 * `issued_token_type` (`urn:ietf:params:oauth:token-type:access_token`).
 *
 * Errors besides the ID-token grant's: a missing `subject_token` or `subject_token_type`, a
 * `subject_token_type` other than the ID-token type, a `requested_token_type` other than the
 * access-token type, or an `actor_token` (delegation is not offered) → `invalid_request` naming
 * what is supported.
 */
export async function tokenExchangeGrant(
  params: ReadonlyMap<string, string>,
  ctx: GrantContext,
  proof?: ProofBinding,
  device?: () => SignInDevice,
): Promise<TokenResponse> {
  const type = requireParam(params, "subject_token_type");
  if (type !== ID_TOKEN_TYPE) {
    throw invalidRequest(
      `Unsupported subject_token_type ${clip(type)}; the supported type is ${ID_TOKEN_TYPE}`,
    );
  }
  const requested = params.get("requested_token_type");
  if (requested !== undefined && requested !== ACCESS_TOKEN_TYPE) {
    throw invalidRequest(
      `Unsupported requested_token_type ${
        clip(requested)
      }; this service issues ${ACCESS_TOKEN_TYPE}`,
    );
  }
  if (params.has("actor_token") || params.has("actor_token_type")) {
    throw invalidRequest(
      "actor_token is not supported: this service does not issue delegated tokens",
    );
  }
  const idToken = requireParam(params, "subject_token");
  const tokens = await redeemIdToken(ctx, params, idToken, proof, device);
  return { ...tokens, issued_token_type: ACCESS_TOKEN_TYPE };
}

/**
 * The one path of both request forms: verifies `idToken` from `params`' `provider` (with its
 * optional `provider_access_token`), redeems its nonce and signs the user in.
 */
async function redeemIdToken(
  ctx: GrantContext,
  params: ReadonlyMap<string, string>,
  idToken: string,
  proof: ProofBinding | undefined,
  device: (() => SignInDevice) | undefined,
): Promise<TokenResponse> {
  const providerName = requireParam(params, "provider");
  const accessToken = params.get("provider_access_token");
  if (accessToken === "") throw invalidRequest("Parameter provider_access_token is empty");
  const provider = ctx.providers.get(providerName);
  if (!provider) throw invalidRequest(`Unknown provider ${clip(providerName)}`);
  const displayName = appleUserParam(params, provider.config);

  let claims: IdTokenClaims;
  try {
    claims = await provider.verifyIdToken(idToken, ctx.config.grants.id_token_max_age);
  } catch (err) {
    if (err instanceof IdTokenInvalid) {
      ctx.log.info("id token refused", {
        provider: providerName,
        failure: err.kind,
        reason: err.message,
      });
      throw invalidGrant(INVALID_ID_TOKEN);
    }
    throw err;
  }
  if (accessToken !== undefined) {
    // The signature is verified, so the header's alg is the one the provider signed with.
    const alg = decodeProtectedHeader(idToken).alg ?? "";
    if (!atHashMatches(claims.at_hash, accessToken, alg)) {
      throw invalidGrant(
        claims.at_hash === undefined
          ? "The ID token has no at_hash to bind provider_access_token"
          : "The ID token's at_hash does not match provider_access_token",
      );
    }
  }
  if (typeof claims.nonce !== "string" || claims.nonce === "") {
    throw invalidGrant("The ID token carries no nonce; get one from POST /nonce");
  }
  const outcome = await ctx.store.nonces.redeem(
    nonceLookupHashes(claims.nonce),
    assertionMark(claims, idToken),
  );
  if (outcome !== "redeemed") throw invalidGrant(REFUSALS[outcome]);
  return await signIn(ctx, {
    grantType: params.get("grant_type") ?? "id_token",
    provider: providerName,
    claims,
    event: "id token redeemed",
    proof,
    device: device?.(),
    displayName,
  });
}

/**
 * The one `error_description` of an ID token that fails verification, whatever failed: the
 * library's own message (naming our dependency, telling "no such `kid`" from "bad signature")
 * is logged, never returned.
 */
export const INVALID_ID_TOKEN = "The ID token is not valid";

/** The fixed descriptions of a verified ID token refused by the nonce and replay step. */
export const REFUSALS: Readonly<Record<Exclude<RedeemOutcome, "redeemed">, string>> = {
  nonce_unknown: "The ID token's nonce was not issued by this service or was already used",
  nonce_expired: "The ID token's nonce has expired",
  assertion_used: "This ID token has already been redeemed",
};

/**
 * The single-use marker of a verified ID token: keyed on `jti` when present, else on the
 * token's SHA-256, and kept while the token could still verify (`exp` plus the clock skew).
 *
 * @param claims the verified claims (`iss` and `exp` are present)
 * @param idToken the compact token
 * @returns the marker
 */
export function assertionMark(claims: IdTokenClaims, idToken: string): AssertionMark {
  const jti = typeof claims.jti === "string" && claims.jti !== "" ? claims.jti : undefined;
  return {
    issuer: String(claims.iss),
    id: jti === undefined ? `sha256:${tokenHash(idToken)}` : `jti:${jti}`,
    expires_at: (Number(claims.exp) + ID_TOKEN_CLOCK_SKEW) * 1000,
  };
}
