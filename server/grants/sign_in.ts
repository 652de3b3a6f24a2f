import type { ProofBinding } from "../dpop/token_proof.ts";
import type { IdTokenClaims } from "../providers/id_token.ts";
import type { SignInDevice } from "../sessions/sign_in_device.ts";
import type { GrantContext } from "./grant.ts";
import { startSession, type TokenResponse } from "./issue_tokens.ts";
import { provisionUser } from "./provision_user.ts";
import type { UserRecord } from "../store/users.ts";

/** One sign-in of a verified provider identity. */
export interface SignInRequest {
  /** The `grant_type` being answered (what the access-token hook is told). */
  readonly grantType: string;
  /** The provider name. */
  readonly provider: string;
  /** The verified ID-token claims. */
  readonly claims: IdTokenClaims;
  /** The log message naming how the identity arrived. */
  readonly event: string;
  /** The request's DPoP key: the session is bound to it. */
  readonly proof: ProofBinding | undefined;
  /** What the session keeps about the device, as `[privacy]` allows. */
  readonly device?: SignInDevice | undefined;
  /** The name for a new user from the app (Sign in with Apple's `user`). */
  readonly displayName?: string | undefined;
  /**
   * Run with the signed-in user before the session starts (the code exchange keeps Apple's
   * refresh token there).
   */
  readonly beforeSession?: (user: UserRecord) => Promise<void>;
}

/**
 * Signs in a verified provider identity: finds or creates the user under the registration
 * policy and starts a session. The common tail of every grant that starts from an ID token
 * (code exchange, direct ID-token grant).
 *
 * @param ctx the grant context
 * @param request the identity, how it arrived and what the session keeps
 * @returns the full token response
 * @throws {OAuthError} 403 `access_denied` when the policy refuses; 503
 *   `temporarily_unavailable` when the access-token hook failed under `deny`
 */
export async function signIn(ctx: GrantContext, request: SignInRequest): Promise<TokenResponse> {
  const { provider } = request;
  const user = await provisionUser(ctx, ctx.ids, provider, request.claims, request.displayName);
  await request.beforeSession?.(user);
  const response = await startSession(ctx, user, ctx.ids.next("ses"), request.proof?.jkt, {
    grantType: request.grantType,
    device: request.device,
  });
  ctx.log.info(request.event, { provider, user: user.id });
  return response;
}
