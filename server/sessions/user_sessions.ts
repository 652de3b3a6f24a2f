/**
 * A user's live sessions as people see them: when each started and was last used, the app it
 * is for, and the device facts `[privacy]` let it keep. One view for the user's own list
 * (`GET /sessions`) and the operator's (`GET /internal/users/{id}/sessions`).
 *
 * @module
 */
import type { SessionClient, SessionFamily, SessionStore } from "../store/sessions.ts";
import { isLiveSession } from "./live_session.ts";

/** One live session. */
export interface SessionView {
  /** The session id (`ses_…`), the access tokens' `sid`. */
  readonly id: string;
  /** ISO 8601 (UTC): the sign-in that started it. */
  readonly created_at: string;
  /** ISO 8601 (UTC): its last refresh (at most a few minutes stale), else `created_at`. */
  readonly last_used_at: string;
  /** ISO 8601 (UTC): its absolute end; refreshes never extend it. */
  readonly expires_at: string;
  /** The app it is for; `null` for a session started before this was kept. */
  readonly client: SessionClient | null;
  /** The sign-in's `User-Agent`, when kept. */
  readonly user_agent: string | null;
  /** The sign-in's network (IPv4 /24, IPv6 /48), when kept. */
  readonly ip_prefix: string | null;
}

/**
 * The user's live sessions, oldest first, with when each was last used.
 *
 * @param store the session store
 * @param userId the user
 * @param now the current time (ms)
 */
export async function liveSessionsOf(
  store: Pick<SessionStore, "familiesOfUser" | "getFamilies" | "lastUsed">,
  userId: string,
  now: number,
): Promise<SessionView[]> {
  const families = (await store.getFamilies(await store.familiesOfUser(userId)))
    .filter((f): f is SessionFamily => isOwnLive(f, userId, now))
    .sort((a, b) => a.created_at - b.created_at);
  const used = await store.lastUsed(families.map((f) => f.id));
  return families.map((f) => sessionView(f, used.get(f.id)));
}

/** The view of one session, last used at `lastUsed` (ms) if known. */
export function sessionView(f: SessionFamily, lastUsed: number | undefined): SessionView {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id: f.id,
    created_at: iso(f.created_at),
    last_used_at: iso(Math.max(f.created_at, lastUsed ?? 0)),
    expires_at: iso(f.expires_at),
    client: f.client ?? null,
    user_agent: f.user_agent ?? null,
    ip_prefix: f.ip_prefix ?? null,
  };
}

/**
 * The session `sid` when it is one of `userId`'s live sessions; `undefined` otherwise, another
 * user's session included (callers answer both with the same 404).
 */
export async function ownLiveSession(
  store: Pick<SessionStore, "getFamily">,
  userId: string,
  sid: string,
  now: number,
): Promise<SessionFamily | undefined> {
  const family = await store.getFamily(sid);
  return isOwnLive(family, userId, now) ? family : undefined;
}

/** Whether `family` exists, belongs to `userId` and is live at `now`. */
function isOwnLive(
  family: SessionFamily | undefined,
  userId: string,
  now: number,
): family is SessionFamily {
  return family !== undefined && family.user_id === userId && isLiveSession(family, now);
}
