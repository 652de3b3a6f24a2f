import type { ProofBinding } from "../dpop/token_proof.ts";
import type { IdTokenClaims } from "../providers/id_token.ts";
import type { GrantContext } from "./grant.ts";
import { startSession, type TokenResponse } from "./issue_tokens.ts";
import { provisionUser } from "./provision_user.ts";
import type { UserRecord } from "../store/users.ts";

/**
 * Signs in a verified provider identity: finds or creates the user under the registration
 * policy and starts a session. The common tail of every grant that starts from an ID token
 * (code exchange, direct ID-token grant).
 *
 * @param ctx the grant context
 * @param provider the provider name
 * @param claims the verified ID-token claims
 * @param event the log message naming how the identity arrived
 * @param proof the request's DPoP key: the session is bound to it
 * @param displayName the name for a new user from the app (Sign in with Apple's `user`)
 * @param beforeSession run with the signed-in user before the session starts (the code
 *   exchange keeps Apple's refresh token there)
 * @returns the full token response
 * @throws {OAuthError} 403 `access_denied` when the policy refuses
 */
export async function signIn(
  ctx: GrantContext,
  provider: string,
  claims: IdTokenClaims,
  event: string,
  proof: ProofBinding | undefined,
  displayName?: string,
  beforeSession?: (user: UserRecord) => Promise<void>,
): Promise<TokenResponse> {
  const user = await provisionUser(ctx, ctx.ids, provider, claims, displayName);
  await beforeSession?.(user);
  const response = await startSession(ctx, user, ctx.ids.next("ses"), proof?.jkt);
  ctx.log.info(event, { provider, user: user.id });
  return response;
}
