/**
 * The session routes of the internal API: a user's live sessions, and revoking one of them
 * (the user's other sessions keep working). The console's session list and its revoke
 * buttons call these.
 *
 * @module
 */
import type { ServiceDeps } from "../deps.ts";
import { resourceNotFound } from "../errors.ts";
import { isSessionId, isUserId } from "../store/ids.ts";
import { isLiveSession } from "../sessions/live_session.ts";
import type { SessionFamily } from "../store/store.ts";
import { auditOperatorAction } from "./audit.ts";
import type { OperatorHandler } from "./user_routes.ts";
import { NO_STORE } from "../http/json_response.ts";

/** One live session as the internal API shows it. */
export interface SessionView {
  /** The session id (`ses_…`), the access tokens' `sid`. */
  readonly id: string;
  /** ISO 8601 (UTC): the code exchange that started it. */
  readonly created_at: string;
  /** ISO 8601 (UTC): its absolute end; refreshes never extend it. */
  readonly expires_at: string;
}

/**
 * The handlers of `GET /internal/users/{id}/sessions` (`{sessions: [SessionView…]}`, live
 * ones only, oldest first) and `DELETE /internal/users/{id}/sessions/{sid}` (revokes that
 * session: 200 `{id, revoked: true}`; 404 when the user has no such live session).
 *
 * @param deps store, clock and logger
 * @returns the handlers by `METHOD pattern`
 */
export function sessionRoutes(
  deps: Pick<ServiceDeps, "store" | "clock" | "log">,
): Record<string, OperatorHandler> {
  const { users, sessions } = deps.store;
  const mustExist = async (id: string) => {
    if (!isUserId(id) || !(await users.get(id))) throw resourceNotFound("user");
  };
  return {
    "GET /internal/users/{id}/sessions": async (r) => {
      const userId = r.params.id!;
      await mustExist(userId);
      const now = deps.clock.now();
      const ids = await sessions.familiesOfUser(userId);
      const families = await Promise.all(ids.map((id) => sessions.getFamily(id)));
      const live = families
        .filter((f): f is SessionFamily => f !== undefined && isLiveSession(f, now))
        .sort((a, b) => a.created_at - b.created_at)
        .map(sessionView);
      return Response.json({ sessions: live }, { headers: NO_STORE });
    },
    "DELETE /internal/users/{id}/sessions/{sid}": async (r) => {
      const userId = r.params.id!;
      const sid = r.params.sid!;
      await mustExist(userId);
      if (!isSessionId(sid)) throw resourceNotFound("session");
      const family = await sessions.getFamily(sid);
      // Another user's session is not this user's: the same 404 as one that does not exist.
      if (!family || family.user_id !== userId || !isLiveSession(family, deps.clock.now())) {
        throw resourceNotFound("session");
      }
      if (!await sessions.revokeFamily(sid, deps.clock.now())) throw resourceNotFound("session");
      auditOperatorAction(deps.log, r.operator, "session.revoke", { user: userId, session: sid });
      return Response.json({ id: sid, revoked: true }, { headers: NO_STORE });
    },
  };
}

function sessionView(f: SessionFamily): SessionView {
  return {
    id: f.id,
    created_at: new Date(f.created_at).toISOString(),
    expires_at: new Date(f.expires_at).toISOString(),
  };
}
