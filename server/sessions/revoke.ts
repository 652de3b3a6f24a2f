import type { DepsWith } from "../deps.ts";
import { tokenHash } from "./opaque_token.ts";
import { verifyAccessToken } from "./access_token.ts";

/** What revocation depends on. */
export type RevokeDeps = DepsWith<"config" | "keys" | "clock" | "log" | "webhooks", "sessions">;

/** The kinds of token `POST /revoke` understands (RFC 7009 `token_type_hint` values). */
export type RevocableType = "refresh_token" | "access_token";

/**
 * Revokes the session (family) a token belongs to, per RFC 7009: a refresh token revokes its
 * own family; an access token we signed (expired ones included) revokes the family named by
 * its `sid`. Other sessions of the same user are untouched. The hint only decides which
 * interpretation is tried first; the other one is tried too.
 *
 * @param deps store, keys, clock, config and logger
 * @param token the presented token (anything: garbage is simply not found)
 * @param hint `token_type_hint`, if any (unknown values are ignored)
 * @returns the revoked family's id, or `undefined` when the token named no live session
 *
 * @example
 * ```ts
 * import type { ServiceDeps } from "../deps.ts";
 *
 * async function revoke(deps: ServiceDeps, refreshToken: string) {
 *   await revokeToken(deps, refreshToken, "refresh_token"); // "ses_01H…"
 *   await revokeToken(deps, "garbage", undefined); // undefined
 * }
 * ```
 */
export async function revokeToken(
  deps: RevokeDeps,
  token: string,
  hint: string | undefined,
): Promise<string | undefined> {
  const order: RevocableType[] = hint === "access_token"
    ? ["access_token", "refresh_token"]
    : ["refresh_token", "access_token"];
  for (const type of order) {
    const family = type === "refresh_token"
      ? await familyOfRefreshToken(deps, token)
      : await familyOfAccessToken(deps, token);
    if (family === undefined) continue;
    const now = deps.clock.now();
    if (
      await deps.store.sessions.revokeFamily(family.id, now, deps.webhooks.revocation("logout"))
    ) {
      deps.log.info("session revoked", { family: family.id, user: family.user, via: type });
      return family.id;
    }
    return undefined; // already revoked (or gone): nothing more to do
  }
  return undefined;
}

type FamilyRef = { id: string; user: string | undefined };

async function familyOfRefreshToken(
  deps: RevokeDeps,
  token: string,
): Promise<FamilyRef | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const record = await deps.store.sessions.getRefresh(tokenHash(token));
  return record && { id: record.family_id, user: record.user_id };
}

async function familyOfAccessToken(
  deps: RevokeDeps,
  token: string,
): Promise<FamilyRef | undefined> {
  // Expired tokens may be revoked too: checked as of when they were issued. Tokens of keys no
  // longer published cannot be checked and are ignored.
  const claims = await verifyAccessToken(deps, token, "issued");
  return claims && { id: claims.sid, user: claims.sub };
}
