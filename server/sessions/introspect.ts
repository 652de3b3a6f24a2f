import type { DepsWith } from "../deps.ts";
import { tokenHash } from "./opaque_token.ts";
import type { UserRecord } from "../store/users.ts";
import { verifyAccessToken } from "./access_token.ts";
import { classifyRefresh } from "./classify_refresh.ts";
import { isLiveSession } from "./live_session.ts";

/** What introspection depends on. */
export type IntrospectDeps = DepsWith<"config" | "keys" | "clock", "sessions" | "users">;

/**
 * An RFC 7662 introspection response. Inactive tokens get exactly `{active: false}`, whatever
 * the reason, so the answer never tells why.
 */
export type Introspection =
  | { readonly active: false }
  | {
    readonly active: true;
    /** The user id. */
    readonly sub: string;
    /** The session (family) id. */
    readonly sid: string;
    /** Seconds since the epoch. */
    readonly exp: number;
    readonly iat: number;
    readonly iss: string;
    /**
     * `Bearer` or `DPoP` for an access token (RFC 6749 §5.1, RFC 9449 §6.2); `refresh_token`
     * for a refresh token.
     */
    readonly token_type: "Bearer" | "DPoP" | "refresh_token";
    /** The DPoP key the token is bound to (RFC 9449 §6.2): its session's, for a refresh token. */
    readonly cnf?: { readonly jkt: string };
    /** The access token's `scope` claim, when it carries one (from custom or user claims). */
    readonly scope?: string;
  };

const INACTIVE: Introspection = Object.freeze({ active: false });

/** The shape of every refresh token we issue. */
const REFRESH_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Introspects a token (RFC 7662) for a resource server that needs revocation to take effect
 * at once. Live means, for an access token: ours (signature by a published key, `typ: JWT`,
 * our issuer), not expired, its session stored, not revoked, not past its end, and its user
 * `active`; for a refresh token: the current (not rotated) token of such a session, itself
 * not expired. Everything else is `{active: false}`, an access token whose session was revoked
 * included, even while its `exp` is still ahead.
 *
 * @param deps config, store, keys and clock
 * @param token the presented token
 * @param hint `token_type_hint`: which interpretation is tried first (both are tried)
 * @returns the introspection response
 *
 * @example
 * ```ts
 * import type { ServiceDeps } from "../deps.ts";
 *
 * const inspect = (deps: ServiceDeps, accessToken: string) =>
 *   introspectToken(deps, accessToken, undefined);
 * // { active: true, sub: "usr_…", sid: "ses_…", exp, iat, iss, token_type: "Bearer" }
 * ```
 */
export async function introspectToken(
  deps: IntrospectDeps,
  token: string,
  hint: string | undefined,
): Promise<Introspection> {
  const order = hint === "refresh_token"
    ? [introspectRefresh, introspectAccess]
    : [introspectAccess, introspectRefresh];
  for (const introspect of order) {
    const found = await introspect(deps, token);
    if (found !== undefined) return found;
  }
  return INACTIVE;
}

/** `undefined` when `token` is not an access token of ours; else its introspection. */
async function introspectAccess(
  deps: IntrospectDeps,
  token: string,
): Promise<Introspection | undefined> {
  const now = deps.clock.now();
  const claims = await verifyAccessToken(deps, token, now);
  if (claims === undefined) return undefined;
  const [family, user] = await Promise.all([
    deps.store.sessions.getFamily(claims.sid),
    deps.store.users.get(claims.sub),
  ]);
  const live = family !== undefined && isLiveSession(family, now) &&
    family.user_id === claims.sub && isActive(user);
  if (!live || typeof claims.exp !== "number" || typeof claims.iat !== "number") return INACTIVE;
  return {
    active: true,
    sub: claims.sub,
    sid: claims.sid,
    exp: claims.exp,
    iat: claims.iat,
    iss: deps.config.server.issuer,
    ...boundTo(claims.cnf),
    ...(typeof claims.scope === "string" ? { scope: claims.scope } : {}),
  };
}

/** `undefined` when `token` names no stored refresh record; else its introspection. */
async function introspectRefresh(
  deps: IntrospectDeps,
  token: string,
): Promise<Introspection | undefined> {
  if (!REFRESH_SHAPE.test(token)) return undefined;
  const { sessions, users } = deps.store;
  // The records themselves, not `readForRefresh`: that may answer from what the store
  // remembers, which only a rotation's checks prove, and introspection rotates nothing (a
  // revocation since would otherwise go unseen).
  const record = await sessions.getRefresh(tokenHash(token));
  if (record === undefined) return undefined;
  const [family, user] = await Promise.all([
    sessions.getFamily(record.family_id),
    users.get(record.user_id),
  ]);
  // The refresh grant's own classification: only a token it would honour without a retry is
  // live (a rotated token inside its grace window is not: its successor is).
  const state = classifyRefresh({
    snapshot: { record, family, successorLive: undefined },
    now: deps.clock.now(),
    graceMs: 0,
    sawLive: false,
  });
  if (state.kind !== "live" || !isActive(user)) return INACTIVE;
  return {
    active: true,
    sub: record.user_id,
    sid: record.family_id,
    exp: Math.floor(record.expires_at / 1000),
    iat: Math.floor(record.issued_at / 1000),
    iss: deps.config.server.issuer,
    token_type: "refresh_token",
    ...(family?.dpop_jkt === undefined ? {} : { cnf: { jkt: family.dpop_jkt } }),
  };
}

/** `token_type` and `cnf` of an access token from its `cnf` claim. */
function boundTo(cnf: unknown): { token_type: "Bearer" } | {
  token_type: "DPoP";
  cnf: { jkt: string };
} {
  const jkt = typeof cnf === "object" && cnf !== null ? (cnf as { jkt?: unknown }).jkt : undefined;
  return typeof jkt === "string" ? { token_type: "DPoP", cnf: { jkt } } : { token_type: "Bearer" };
}

function isActive(user: UserRecord | undefined): boolean {
  return user !== undefined && user.status === "active";
}
