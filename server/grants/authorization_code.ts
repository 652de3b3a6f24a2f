import { clip, invalidRequest, serverError } from "../errors.ts";
import { IdTokenInvalid } from "../providers/id_token.ts";
import type { GrantContext } from "./grant.ts";
import type { TokenResponse } from "./issue_tokens.ts";
import { requireParam } from "./params.ts";
import { signIn } from "./sign_in.ts";

/**
 * `grant_type=authorization_code` (`code`, `provider`, `redirect_uri`): exchanges the code at
 * the provider, verifies the returned ID token, finds or creates the user under the
 * registration policy, and starts a session.
 *
 * Errors: missing parameter or unknown provider → `invalid_request`; the provider refusing
 * the code → `invalid_grant`; policy → `access_denied`; an ID token from the provider that
 * fails verification, or any other provider failure → 502 `server_error` (504 on timeout).
 */
export async function authorizationCodeGrant(
  params: ReadonlyMap<string, string>,
  ctx: GrantContext,
): Promise<TokenResponse> {
  const code = requireParam(params, "code");
  const providerName = requireParam(params, "provider");
  const redirectUri = requireParam(params, "redirect_uri");
  const provider = ctx.providers.get(providerName);
  if (!provider) throw invalidRequest(`Unknown provider ${clip(providerName)}`);

  const tokens = await provider.exchangeCode(code, redirectUri);
  let claims;
  try {
    claims = await provider.verifyIdToken(tokens.id_token);
  } catch (err) {
    if (err instanceof IdTokenInvalid) {
      throw serverError(502, { msg: "provider ID token failed verification", reason: err.message });
    }
    throw err;
  }
  return await signIn(ctx, providerName, claims, "code exchanged");
}
