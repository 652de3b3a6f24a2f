/**
 * The operator's operations on users, claims, sessions and the store: the only code that does
 * admin work on the store. The internal API's routes (`internal_routes.ts`) parse a request,
 * call one of these and answer its result as JSON; the console's pages call them and render
 * the result. Every change is made on behalf of an authenticated operator and writes its
 * audit line here, so both front ends audit alike.
 *
 * Inputs are already validated (`user_input.ts`); what needs the stored state to decide (an
 * id that names no user, a merged claims object too large) is decided here, as `OAuthError`s
 * both front ends show.
 *
 * @module
 */
import type { OperatorPrincipal } from "../auth/operator_gate.ts";
import type { ServiceDeps } from "../deps.ts";
import { conflict, resourceNotFound } from "../errors.ts";
import { accessTokenPayload } from "../grants/issue_tokens.ts";
import { isLiveSession } from "../sessions/live_session.ts";
import { type IdFactory, isSessionId, isUserId } from "../store/ids.ts";
import type { SessionFamily, StoredKey, UserRecord } from "../store/store.ts";
import { auditOperatorAction } from "./audit.ts";
import {
  checkClaimsSize,
  encodeCursor,
  mergeClaims,
  type NewUserInput,
  USER_STATUSES,
  type UserPatch,
} from "./user_input.ts";
import { lookUpUsers, type UserLookup } from "./user_lookup.ts";
import { type UserView, userView } from "./user_view.ts";

/** One live session as operators see it. */
export interface SessionView {
  /** The session id (`ses_…`), the access tokens' `sid`. */
  readonly id: string;
  /** ISO 8601 (UTC): the code exchange that started it. */
  readonly created_at: string;
  /** ISO 8601 (UTC): its absolute end; refreshes never extend it. */
  readonly expires_at: string;
}

/** One page of users in id order, and the cursor of the next page (`null` on the last). */
export interface UserPage {
  readonly users: UserView[];
  readonly next_cursor: string | null;
}

/** What {@linkcode AdminOperations.stats} counts (`GET /internal/stats`). */
export interface StatsView {
  /** `total` and one count per status (every known status, 0 when none). */
  readonly users: Readonly<Record<string, number>>;
  readonly sessions: { readonly live: number };
}

/** The users a look-up found, and whether it covered every user. */
export interface FoundUsers {
  readonly users: UserView[];
  readonly complete: boolean;
}

/** The key ring as operators see it. */
export interface SigningKeys {
  readonly keys: readonly StoredKey[];
  /** The kid this process signs with. */
  readonly activeKid: string;
}

/** The operator's operations; every change names the operator that makes it. */
export interface AdminOperations {
  /** Creates an active user; 409 `conflict` when (provider, external_id) is taken. */
  createUser(operator: OperatorPrincipal, input: NewUserInput): Promise<UserView>;
  /** Users after the cursor's user (an id), at most `limit`. */
  listUsers(after: string | undefined, limit: number): Promise<UserPage>;
  /** Users found by id, provider and external id, or email (see `user_lookup.ts`). */
  findUsers(lookup: UserLookup): Promise<FoundUsers>;
  /** The user; 404 `not_found` when no user has `id`. */
  getUser(id: string): Promise<UserView>;
  /** Applies `patch`; a user patched to `Deleted` loses every session. 404 as `getUser`. */
  patchUser(operator: OperatorPrincipal, id: string, patch: UserPatch): Promise<UserView>;
  /** Marks the user `Deleted` and revokes every session. 404 as `getUser`. */
  deleteUser(operator: OperatorPrincipal, id: string): Promise<UserView>;
  /** The user's private claims. 404 as `getUser`. */
  getClaims(id: string): Promise<Readonly<Record<string, unknown>>>;
  /** Replaces the user's claims; the new claims. 404 as `getUser`. */
  replaceClaims(
    operator: OperatorPrincipal,
    id: string,
    claims: Record<string, unknown>,
  ): Promise<Readonly<Record<string, unknown>>>;
  /** Merges `patch` into the claims (`null` deletes a claim); 400 when the result is too large. */
  mergeClaims(
    operator: OperatorPrincipal,
    id: string,
    patch: Record<string, unknown>,
  ): Promise<Readonly<Record<string, unknown>>>;
  /** Removes every claim; the (empty) claims. 404 as `getUser`. */
  clearClaims(operator: OperatorPrincipal, id: string): Promise<Readonly<Record<string, unknown>>>;
  /** The claims an access token issued to the user now would carry (`sid` a placeholder). */
  previewAccessClaims(id: string): Promise<Record<string, unknown>>;
  /** The user's live sessions, oldest first. 404 as `getUser`. */
  listSessions(userId: string): Promise<SessionView[]>;
  /** Revokes one live session of the user; 404 `not_found` when the user has no such one. */
  revokeSession(operator: OperatorPrincipal, userId: string, sessionId: string): Promise<void>;
  /** Users per status and live sessions, from counters (no scan). */
  stats(): Promise<StatsView>;
  /** One bounded batch of the store's housekeeping; how many sessions it deleted. */
  sweepExpired(operator: OperatorPrincipal): Promise<number>;
  /** The signing keys in the store's ring. */
  signingKeys(): Promise<SigningKeys>;
}

/** What the operations depend on. */
export type AdminDeps =
  & Pick<ServiceDeps, "store" | "clock" | "log" | "config" | "keys" | "random">
  & { readonly ids: IdFactory };

/**
 * Builds the operations on `deps.store`.
 *
 * @param deps store, clock, request-scoped logger, config, key manager and id factory
 * @returns the operations
 *
 * @example
 * ```ts
 * const ops = createAdminOperations({ ...deps, ids });
 * await ops.patchUser(operator, "usr_…", { status: "suspended" });
 * ```
 */
export function createAdminOperations(deps: AdminDeps): AdminOperations {
  const { users, sessions } = deps.store;
  const audit = (
    operator: OperatorPrincipal,
    action: string,
    fields: Readonly<Record<string, unknown>>,
  ) => auditOperatorAction(deps.log, operator, action, fields);
  // A path segment that cannot be a user id is simply not a user: 404 before any store access.
  const mustGet = async (id: string): Promise<UserRecord> => {
    const user = isUserId(id) ? await users.get(id) : undefined;
    if (!user) throw resourceNotFound("user");
    return user;
  };
  const mustUpdate = async (id: string, change: (u: UserRecord) => UserRecord) => {
    const user = isUserId(id) ? await users.update(id, change) : undefined;
    if (!user) throw resourceNotFound("user");
    return user;
  };

  return {
    async createUser(operator, input) {
      const now = deps.clock.now();
      const user: UserRecord = {
        id: deps.ids.next("usr"),
        ...input,
        status: "active",
        created_at: now,
        updated_at: now,
      };
      if (!(await users.create(user)).ok) {
        throw conflict(
          `A user with provider "${input.provider}" and this external_id already exists`,
        );
      }
      audit(operator, "user.create", { user: user.id, provider: user.provider });
      return userView(user);
    },

    async listUsers(after, limit) {
      // One extra row says whether another page exists, without counting the rest.
      const page = await users.list(after, limit + 1);
      const more = page.length > limit;
      const shown = more ? page.slice(0, limit) : page;
      return {
        users: shown.map(userView),
        next_cursor: more ? encodeCursor(shown[shown.length - 1]!.id) : null,
      };
    },

    async findUsers(lookup) {
      const found = await lookUpUsers(users, lookup);
      return { users: found.users.map(userView), complete: found.complete };
    },

    async getUser(id) {
      return userView(await mustGet(id));
    },

    async patchUser(operator, id, patch) {
      let before = "";
      const user = await mustUpdate(id, (u) => {
        before = u.status;
        return { ...u, ...patch };
      });
      // A deleted user keeps no session. A suspension keeps them stored: a refresh while
      // suspended is refused (and revokes that session), and sessions not used meanwhile work
      // again after reactivation.
      const revoked = user.status === "Deleted"
        ? await sessions.revokeAllOfUser(user.id, deps.clock.now())
        : 0;
      audit(operator, "user.update", {
        user: user.id,
        fields: Object.keys(patch),
        ...(patch.status === undefined ? {} : { status: patch.status, from: before }),
        ...(revoked > 0 ? { revoked_sessions: revoked } : {}),
      });
      return userView(user);
    },

    async deleteUser(operator, id) {
      let before = "";
      const user = await mustUpdate(id, (u) => {
        before = u.status;
        return { ...u, status: "Deleted" };
      });
      // Status first, then sessions: a refresh racing the delete is refused on its next use.
      const revoked = await sessions.revokeAllOfUser(user.id, deps.clock.now());
      audit(operator, "user.delete", { user: user.id, from: before, revoked_sessions: revoked });
      return userView(user);
    },

    async getClaims(id) {
      return (await mustGet(id)).claims;
    },

    async replaceClaims(operator, id, claims) {
      const user = await mustUpdate(id, (u) => ({ ...u, claims }));
      audit(operator, "claims.replace", { user: user.id, claims: Object.keys(claims) });
      return user.claims;
    },

    async mergeClaims(operator, id, patch) {
      const user = await mustUpdate(id, (u) => {
        const claims = mergeClaims(u.claims, patch);
        checkClaimsSize(claims);
        return { ...u, claims };
      });
      audit(operator, "claims.merge", { user: user.id, claims: Object.keys(patch) });
      return user.claims;
    },

    async clearClaims(operator, id) {
      const user = await mustUpdate(id, (u) => ({ ...u, claims: {} }));
      audit(operator, "claims.clear", { user: user.id });
      return user.claims;
    },

    async previewAccessClaims(id) {
      const user = isUserId(id) ? await users.get(id) : undefined;
      return user ? accessTokenPayload(deps, user, "(the session's id)") : {};
    },

    async listSessions(userId) {
      await mustGet(userId);
      const now = deps.clock.now();
      const ids = await sessions.familiesOfUser(userId);
      const families = await Promise.all(ids.map((id) => sessions.getFamily(id)));
      return families
        .filter((f): f is SessionFamily => f !== undefined && isLiveSession(f, now))
        .sort((a, b) => a.created_at - b.created_at)
        .map(sessionView);
    },

    async revokeSession(operator, userId, sid) {
      await mustGet(userId);
      if (!isSessionId(sid)) throw resourceNotFound("session");
      const family = await sessions.getFamily(sid);
      // Another user's session is not this user's: the same 404 as one that does not exist.
      if (!family || family.user_id !== userId || !isLiveSession(family, deps.clock.now())) {
        throw resourceNotFound("session");
      }
      if (!await sessions.revokeFamily(sid, deps.clock.now())) throw resourceNotFound("session");
      audit(operator, "session.revoke", { user: userId, session: sid });
    },

    async stats() {
      const counts = await deps.store.stats.read();
      const byStatus: Record<string, number> = {};
      for (const s of USER_STATUSES) byStatus[s] = 0;
      for (const [s, n] of Object.entries(counts.users)) byStatus[s] = n;
      const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
      return { users: { total, ...byStatus }, sessions: { live: counts.sessions } };
    },

    async sweepExpired(operator) {
      const deleted = await deps.store.housekeeping.sweepExpired(deps.clock.now());
      audit(operator, "sessions.cleanup", { deleted });
      return deleted;
    },

    async signingKeys() {
      const { ring } = await deps.store.keyring.load();
      return { keys: ring?.keys ?? [], activeKid: deps.keys.activeKid };
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
