import type { DepsWith } from "../deps.ts";
import { resourceNotFound } from "../errors.ts";
import { jsonResponse, NO_STORE } from "../http/json_response.ts";
import type { Route } from "../http/router.ts";
import { createUserAccessCheck } from "../auth/user_access.ts";
import { liveSessionsOf, ownLiveSession } from "../sessions/user_sessions.ts";
import { isSessionId } from "../store/ids.ts";

/**
 * The sessions a user can see and end themselves, on the public listener, authorised by their
 * own access token (`sessions/user_access.ts`: Bearer, or DPoP with a proof for a bound token):
 *
 * - `GET /sessions`: `{sessions: [SessionView…]}`, the user's live sessions oldest first, each
 *   with `current: true` for the session of the token used.
 * - `DELETE /sessions/{id}`: ends one of them (its refresh tokens stop working at once) and
 *   answers `{id, revoked: true}`; `session.revoked` (reason `logout`, actor the user) goes out
 *   with the revocation. Another user's session, or one already ended, is 404 `not_found`, the
 *   same answer as an id that never existed.
 *
 * @param deps the service dependencies
 * @returns the two routes
 */
export function sessionsRoutes(
  deps: DepsWith<
    "config" | "keys" | "clock" | "dpopNonces" | "log" | "webhooks",
    "dpop" | "sessions"
  >,
): Route[] {
  const check = createUserAccessCheck(deps);
  // A proof's htu names the resource under our issuer (the address clients know), whatever
  // host a proxy forwarded the request to.
  const urlOf = (req: Request) => `${deps.config.server.issuer}${new URL(req.url).pathname}`;
  return [
    {
      method: "GET",
      path: "/sessions",
      handler: async (req) => {
        const access = await check(req, urlOf(req));
        const sessions = await liveSessionsOf(
          deps.store.sessions,
          access.userId,
          deps.clock.now(),
        );
        return jsonResponse(
          { sessions: sessions.map((s) => ({ ...s, current: s.id === access.sessionId })) },
          200,
          NO_STORE,
        );
      },
    },
    {
      method: "DELETE",
      path: "/sessions/{id}",
      handler: async (req, _info, params) => {
        const sid = params.id!;
        const access = await check(req, urlOf(req));
        const now = deps.clock.now();
        const { sessions } = deps.store;
        if (!isSessionId(sid) || !await ownLiveSession(sessions, access.userId, sid, now)) {
          throw resourceNotFound("session");
        }
        if (!await sessions.revokeFamily(sid, now, deps.webhooks.revocation("logout"))) {
          throw resourceNotFound("session");
        }
        deps.log.info("session ended by its user", { family: sid, user: access.userId });
        return jsonResponse({ id: sid, revoked: true }, 200, NO_STORE);
      },
    },
  ];
}
