import { clip, invalidRequest, serverError } from "../errors.ts";
import { IdTokenInvalid } from "../providers/id_token.ts";
import { appleUserParam } from "../providers/apple_user.ts";
import { keepAppleRefreshToken } from "../providers/apple_revocation.ts";
import type { ProofBinding } from "../dpop/token_proof.ts";
import type { GrantContext } from "./grant.ts";
import type { SignInDevice } from "../sessions/sign_in_device.ts";
import type { TokenResponse } from "./issue_tokens.ts";
import { requireParam } from "./params.ts";
import { signIn } from "./sign_in.ts";

/** RFC 7636 §4.1: `code_verifier = 43*128unreserved`. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * `grant_type=authorization_code` (`code`, `provider`, `redirect_uri`, optional
 * `code_verifier`, and for Sign in with Apple `user`): exchanges the code at the provider,
 * verifies the returned ID token, completes its email and name from the provider's UserInfo
 * endpoint when the token lacks them (OpenID Core §5.4 puts them there once an access token is
 * issued), finds or creates the user under the registration policy (Apple's `user` JSON names a
 * new user, see `providers/apple_user.ts`), keeps Sign in with Apple's refresh token sealed so a
 * deletion can revoke it (`providers/apple_revocation.ts`), and starts a session.
 *
 * PKCE (RFC 7636) passes through: an app that sent a `code_challenge` to the provider presents
 * its `code_verifier` here, and it is forwarded with the code; the provider checks it.
 *
 * Errors: missing parameter, unknown provider or a `code_verifier` that is not 43–128
 * unreserved characters → `invalid_request` (the provider is not called); the provider
 * refusing the code or the verifier → `invalid_grant`; policy → `access_denied`; an ID token
 * from the provider that fails verification, or any other provider failure → 502
 * `server_error` (504 on timeout), a failed UserInfo request included.
 */
export async function authorizationCodeGrant(
  params: ReadonlyMap<string, string>,
  ctx: GrantContext,
  proof?: ProofBinding,
  device?: () => SignInDevice,
): Promise<TokenResponse> {
  const code = requireParam(params, "code");
  const providerName = requireParam(params, "provider");
  const redirectUri = requireParam(params, "redirect_uri");
  const codeVerifier = params.get("code_verifier");
  if (codeVerifier !== undefined && !CODE_VERIFIER.test(codeVerifier)) {
    throw invalidRequest(
      "Parameter code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636)",
    );
  }
  const provider = ctx.providers.get(providerName);
  if (!provider) throw invalidRequest(`Unknown provider ${clip(providerName)}`);
  const displayName = appleUserParam(params, provider.config);

  const tokens = await provider.exchangeCode(code, redirectUri, codeVerifier);
  let claims;
  try {
    claims = await provider.verifyIdToken(tokens.id_token);
  } catch (err) {
    if (err instanceof IdTokenInvalid) {
      throw serverError(502, { msg: "provider ID token failed verification", reason: err.message });
    }
    throw err;
  }
  claims = await provider.withUserinfo(claims, tokens.access_token);
  return await signIn(ctx, {
    grantType: "authorization_code",
    provider: providerName,
    claims,
    event: "code exchanged",
    proof,
    device: device?.(),
    displayName,
    beforeSession: (user) => keepAppleRefreshToken(ctx, provider, user.id, tokens.refresh_token),
  });
}
