import { base64url, epochSeconds } from "@org/shared";
import type { DepsWith } from "../deps.ts";
import type { RefreshRecord, SessionClient, SessionFamily } from "../store/sessions.ts";
import type { UserRecord } from "../store/users.ts";
import type { SignInDevice } from "../sessions/sign_in_device.ts";
import { newOpaqueToken, tokenHash } from "../sessions/opaque_token.ts";
import { accessTokenClaims, type RegisteredClaims } from "./access_claims.ts";
import { renderClaims } from "../config/claim_templates.ts";
import { HOOK_RESERVED_CLAIMS } from "../config/schema.ts";
import { hookRequest } from "../hooks/access_token_hook.ts";

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
export type IssueDeps = DepsWith<
  "config" | "keys" | "clock" | "random" | "accessTokenHook" | "sessionUse",
  "sessions"
>;

/**
 * Where an access token's hook claims come from: a call of the access-token hook (if one is
 * configured) for the grant named, or claims an earlier call gave for the same refresh (a
 * retry within the grace does not call the hook again).
 */
export type HookStep =
  | { readonly call: string }
  | { readonly reuse: Readonly<Record<string, unknown>> | undefined };

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

/** A signed access token, and the hook claims it carries (kept for a refresh's retry). */
export interface MintedAccessToken {
  readonly token: string;
  readonly expiresIn: number;
  readonly tokenType: TokenResponse["token_type"];
  /** What the access-token hook added; absent when no hook ran (or none is configured). */
  readonly hookClaims?: Readonly<Record<string, unknown>>;
}

/**
 * Signs an access token for `user` in session `familyId` ({@linkcode accessTokenPayload}),
 * first calling the access-token hook when one is configured and `hook` asks for a call.
 *
 * @param jkt the thumbprint of the DPoP key to bind the token to, if any
 * @param hook call the hook for this grant type, or reuse an earlier call's claims
 * @returns the JWT, its lifetime in seconds, its `token_type` and the hook's claims
 * @throws {OAuthError} 503 `temporarily_unavailable` when the hook failed under `deny`
 */
export async function mintAccessToken(
  deps: Pick<IssueDeps, "config" | "keys" | "clock" | "random" | "accessTokenHook">,
  user: UserRecord,
  familyId: string,
  jkt: string | undefined,
  hook: HookStep,
): Promise<MintedAccessToken> {
  const base = {
    expiresIn: deps.config.token.access_token_ttl,
    tokenType: jkt === undefined ? "Bearer" as const : "DPoP" as const,
  };
  const payload = accessTokenPayload(deps, user, familyId, jkt);
  let hookClaims: Readonly<Record<string, unknown>> | undefined;
  if ("reuse" in hook) hookClaims = hook.reuse;
  else if (deps.accessTokenHook !== undefined) {
    hookClaims = await deps.accessTokenHook.claimsFor(
      hookRequest(hook.call, user, payload, clientOf(deps.config, user)),
    );
  }
  if (hookClaims === undefined) return { ...base, token: deps.keys.sign(payload) };
  // The registered claims were decided above and win over anything merged in.
  const signed = { ...payload, ...hookClaims, ...registeredOf(payload) };
  return { ...base, token: deps.keys.sign(signed), hookClaims };
}

/** The registered claims of a payload built by {@linkcode accessTokenPayload}. */
function registeredOf(payload: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of HOOK_RESERVED_CLAIMS) if (k in payload) out[k] = payload[k];
  return out;
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

/** How a session starts: what the hook is told and what the session keeps about the device. */
export interface SessionStart {
  /** The `grant_type` answered (what the access-token hook is told). */
  readonly grantType: string;
  /** What `[privacy]` lets the session keep about the device. */
  readonly device?: SignInDevice | undefined;
}

/**
 * Starts a session for `user`: stores a new family (absolute lifetime
 * `token.refresh_token_ttl` from now, the app it is for, and the device facts `[privacy]`
 * allows) with its first refresh token, and answers the full token response. Shared by the
 * code-exchange and ID-token grants. With a DPoP key the session is bound to it: the family
 * keeps its thumbprint (every refresh must prove that key) and the access token carries it as
 * `cnf.jkt`.
 *
 * @param deps config, keys, clock, random, store, hook and session-use record
 * @param user the signed-in (active) user
 * @param familyId a fresh `ses_…` id
 * @param jkt the thumbprint of the request's DPoP key, if it sent a proof
 * @param start the grant type and device facts (default: a code exchange, no device facts)
 * @returns the token response with all four fields
 * @throws {OAuthError} 503 `temporarily_unavailable` when the hook failed under `deny`
 *   (nothing is stored then)
 */
export async function startSession(
  deps: IssueDeps,
  user: UserRecord,
  familyId: string,
  jkt?: string,
  start: SessionStart = { grantType: "authorization_code" },
): Promise<TokenResponse> {
  const now = deps.clock.now();
  const family: SessionFamily = {
    id: familyId,
    user_id: user.id,
    created_at: now,
    expires_at: now + deps.config.token.refresh_token_ttl * 1000,
    revoked: false,
    ...(jkt === undefined ? {} : { dpop_jkt: jkt }),
    client: clientOf(deps.config, user),
    ...start.device,
  };
  const refresh = newRefreshToken(deps, family, family.expires_at);
  const access = await mintAccessToken(deps, user, family.id, jkt, { call: start.grantType });
  await deps.store.sessions.create(family, refresh.record);
  deps.sessionUse.started(family.id, now);
  return {
    access_token: access.token,
    refresh_token: refresh.token,
    token_type: access.tokenType,
    expires_in: access.expiresIn,
  };
}

/** The app a token for `user` goes to: the provider they sign in with and our id there. */
export function clientOf(config: IssueDeps["config"], user: UserRecord): SessionClient {
  return {
    provider: user.provider,
    client_id: config.providers[user.provider]?.client_id ?? null,
  };
}
