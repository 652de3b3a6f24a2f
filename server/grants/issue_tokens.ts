import { base64url, epochSeconds } from "@org/shared";
import type { DepsWith } from "../deps.ts";
import type { RefreshRecord, SessionFamily } from "../store/sessions.ts";
import type { UserRecord } from "../store/users.ts";
import { newOpaqueToken, tokenHash } from "../sessions/opaque_token.ts";
import { accessTokenClaims, type RegisteredClaims } from "./access_claims.ts";
import { renderClaims } from "../config/claim_templates.ts";

/** The token response of every grant (spec "Token response"). */
export interface TokenResponse {
  readonly access_token: string;
  readonly refresh_token?: string;
  /** `DPoP` when the access token is bound to a proof's key (`cnf.jkt`, RFC 9449 §5). */
  readonly token_type: "Bearer" | "DPoP";
  readonly expires_in: number;
  /** RFC 8693 §2.2.1: what a token exchange issued (only in its answer). */
  readonly issued_token_type?: string;
}

/** What the token issuer needs. */
export type IssueDeps = DepsWith<"config" | "keys" | "clock" | "random", "sessions">;

/**
 * The claims of an access token for `user` in session `familyId` issued now: registered
 * claims (`iss`, `sub`, `aud` when configured, `iat`, `exp`, `jti`, `sid`) plus
 * `token.custom_claims` (templates rendered for `user`) and per-user claims, and `cnf.jkt` when
 * bound to a DPoP key. The console shows this as "the claims an access token would carry now".
 *
 * @param jkt the thumbprint of the DPoP key the token is bound to, if any
 * @returns the payload to sign
 */
export function accessTokenPayload(
  deps: Pick<IssueDeps, "config" | "clock" | "random">,
  user: UserRecord,
  familyId: string,
  jkt?: string,
): Record<string, unknown> {
  const { token } = deps.config;
  const iat = epochSeconds(deps.clock);
  const registered: RegisteredClaims = {
    iss: deps.config.server.issuer,
    sub: user.id,
    ...(token.audience === undefined ? {} : { aud: token.audience }),
    iat,
    exp: iat + token.access_token_ttl,
    jti: base64url(deps.random.bytes(16)),
    sid: familyId,
    ...(jkt === undefined ? {} : { cnf: { jkt } }),
  };
  return accessTokenClaims(registered, renderClaims(token.custom_claims, user), user.claims);
}

/**
 * Signs an access token for `user` in session `familyId` ({@linkcode accessTokenPayload}).
 *
 * @param jkt the thumbprint of the DPoP key to bind the token to, if any
 * @returns the JWT, its lifetime in seconds and its `token_type`
 */
export function mintAccessToken(
  deps: Pick<IssueDeps, "config" | "keys" | "clock" | "random">,
  user: UserRecord,
  familyId: string,
  jkt?: string,
): { token: string; expiresIn: number; tokenType: TokenResponse["token_type"] } {
  return {
    token: deps.keys.sign(accessTokenPayload(deps, user, familyId, jkt)),
    expiresIn: deps.config.token.access_token_ttl,
    tokenType: jkt === undefined ? "Bearer" : "DPoP",
  };
}

/**
 * A new refresh token for a family and the record to store for it (hash only).
 *
 * @param expiresAt the record's expiry in ms: never past the family's absolute end
 */
export function newRefreshToken(
  deps: Pick<IssueDeps, "random" | "clock">,
  family: Pick<SessionFamily, "id" | "user_id">,
  expiresAt: number,
): { token: string; record: RefreshRecord } {
  const token = newOpaqueToken(deps.random);
  return {
    token,
    record: {
      hash: tokenHash(token),
      family_id: family.id,
      user_id: family.user_id,
      issued_at: deps.clock.now(),
      expires_at: expiresAt,
    },
  };
}

/**
 * Starts a session for `user`: stores a new family (absolute lifetime
 * `token.refresh_token_ttl` from now) with its first refresh token, and answers the full token
 * response. Shared by the code-exchange and ID-token grants. With a DPoP key the session is
 * bound to it: the family keeps its thumbprint (every refresh must prove that key) and the
 * access token carries it as `cnf.jkt`.
 *
 * @param deps config, keys, clock, random and store
 * @param user the signed-in (active) user
 * @param familyId a fresh `ses_…` id
 * @param jkt the thumbprint of the request's DPoP key, if it sent a proof
 * @returns the token response with all four fields
 */
export async function startSession(
  deps: IssueDeps,
  user: UserRecord,
  familyId: string,
  jkt?: string,
): Promise<TokenResponse> {
  const now = deps.clock.now();
  const family: SessionFamily = {
    id: familyId,
    user_id: user.id,
    created_at: now,
    expires_at: now + deps.config.token.refresh_token_ttl * 1000,
    revoked: false,
    ...(jkt === undefined ? {} : { dpop_jkt: jkt }),
  };
  const refresh = newRefreshToken(deps, family, family.expires_at);
  const access = mintAccessToken(deps, user, family.id, jkt);
  await deps.store.sessions.create(family, refresh.record);
  return {
    access_token: access.token,
    refresh_token: refresh.token,
    token_type: access.tokenType,
    expires_in: access.expiresIn,
  };
}
