import { base64url, epochSeconds } from "@org/shared";
import type { ServiceDeps } from "../deps.ts";
import type { RefreshRecord, SessionFamily, UserRecord } from "../store/store.ts";
import { newOpaqueToken, tokenHash } from "../sessions/opaque_token.ts";
import { accessTokenClaims, type RegisteredClaims } from "./access_claims.ts";
import { renderClaims } from "./claim_templates.ts";

/** The token response of every grant (spec "Token response"). */
export interface TokenResponse {
  readonly access_token: string;
  readonly refresh_token?: string;
  readonly token_type: "Bearer";
  readonly expires_in: number;
}

/** What the token issuer needs. */
export type IssueDeps = Pick<ServiceDeps, "config" | "keys" | "clock" | "random" | "store">;

/**
 * The claims of an access token for `user` in session `familyId` issued now: registered
 * claims (`iss`, `sub`, `aud` when configured, `iat`, `exp`, `jti`, `sid`) plus
 * `token.custom_claims` (templates rendered for `user`) and per-user claims. The console shows
 * this as "the claims an access token would carry now".
 *
 * @returns the payload to sign
 */
export function accessTokenPayload(
  deps: Pick<IssueDeps, "config" | "clock" | "random">,
  user: UserRecord,
  familyId: string,
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
  };
  return accessTokenClaims(registered, renderClaims(token.custom_claims, user), user.claims);
}

/**
 * Signs an access token for `user` in session `familyId` ({@linkcode accessTokenPayload}).
 *
 * @returns the JWT and its lifetime in seconds
 */
export function mintAccessToken(
  deps: Pick<IssueDeps, "config" | "keys" | "clock" | "random">,
  user: UserRecord,
  familyId: string,
): { token: string; expiresIn: number } {
  return {
    token: deps.keys.sign(accessTokenPayload(deps, user, familyId)),
    expiresIn: deps.config.token.access_token_ttl,
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
 * response. Shared by the code-exchange and ID-token grants.
 *
 * @param deps config, keys, clock, random and store
 * @param user the signed-in (active) user
 * @param familyId a fresh `ses_…` id
 * @returns the token response with all four fields
 */
export async function startSession(
  deps: IssueDeps,
  user: UserRecord,
  familyId: string,
): Promise<TokenResponse> {
  const now = deps.clock.now();
  const family: SessionFamily = {
    id: familyId,
    user_id: user.id,
    created_at: now,
    expires_at: now + deps.config.token.refresh_token_ttl * 1000,
    revoked: false,
  };
  const refresh = newRefreshToken(deps, family, family.expires_at);
  const access = mintAccessToken(deps, user, family.id);
  await deps.store.sessions.create(family, refresh.record);
  return {
    access_token: access.token,
    refresh_token: refresh.token,
    token_type: "Bearer",
    expires_in: access.expiresIn,
  };
}
