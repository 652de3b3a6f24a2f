/**
 * The user and claims routes of the internal API (`/internal/users…`). Every handler gets the
 * authenticated operator and writes an audit line for each change.
 *
 * @module
 */
import type { ServiceDeps } from "../deps.ts";
import { readCapped } from "../http/body.ts";
import { conflict, resourceNotFound } from "../errors.ts";
import { type IdFactory, isUserId } from "../store/ids.ts";
import type { UserRecord } from "../store/store.ts";
import type { OperatorPrincipal } from "../auth/operator_gate.ts";
import { auditOperatorAction } from "./audit.ts";
import {
  checkClaimsSize,
  encodeCursor,
  mergeClaims,
  parseClaims,
  parseJsonObject,
  parseListQuery,
  parseNewUser,
  parseUserPatch,
} from "./user_input.ts";
import { userView } from "./user_view.ts";
import { NO_STORE } from "../http/json_response.ts";

/** Largest JSON body of an internal request (bytes). */
export const MAX_JSON_BYTES = 64 * 1024;

/** One internal request after authentication. */
export interface OperatorRequest {
  readonly req: Request;
  readonly params: Readonly<Record<string, string>>;
  readonly operator: OperatorPrincipal;
}

/** An internal route handler. */
export type OperatorHandler = (r: OperatorRequest) => Promise<Response>;

/** What the user routes depend on. */
export type UserRouteDeps = Pick<ServiceDeps, "store" | "clock" | "log" | "config"> & {
  readonly ids: IdFactory;
};

const json = (body: unknown, status = 200) => Response.json(body, { status, headers: NO_STORE });

/**
 * The handlers of the user and claims routes, by `METHOD pattern`.
 *
 * @param deps store, clock, logger and id factory
 * @returns handlers for `/internal/users`, `/internal/users/{id}` and `…/{id}/claims`
 */
export function userRoutes(deps: UserRouteDeps): Record<string, OperatorHandler> {
  const { users, sessions } = deps.store;
  const audit = (r: OperatorRequest, action: string, fields: Record<string, unknown>) =>
    auditOperatorAction(deps.log, r.operator, action, fields);
  // A path segment that cannot be a user id is simply not a user: 404 before any KV access.
  const mustGet = async (id: string): Promise<UserRecord> => {
    if (!isUserId(id)) throw resourceNotFound("user");
    const user = await users.get(id);
    if (!user) throw resourceNotFound("user");
    return user;
  };
  const mustUpdate = async (id: string, change: (u: UserRecord) => UserRecord) => {
    if (!isUserId(id)) throw resourceNotFound("user");
    const user = await users.update(id, change);
    if (!user) throw resourceNotFound("user");
    return user;
  };
  /**
   * A deleted user keeps no session: revokes them all; returns how many. A suspension keeps
   * them stored: a refresh while suspended is refused with `access_denied` (and revokes that
   * session), and sessions not used meanwhile work again after reactivation.
   */
  const revokeIfDeleted = async (user: UserRecord): Promise<number> =>
    user.status === "Deleted" ? await sessions.revokeAllOfUser(user.id, deps.clock.now()) : 0;
  const body = async (req: Request) =>
    parseJsonObject(await readCapped(req, MAX_JSON_BYTES, deps.config.server.body_timeout));

  return {
    "POST /internal/users": async (r) => {
      const input = parseNewUser(await body(r.req));
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
      audit(r, "user.create", { user: user.id, provider: user.provider });
      return Response.json(userView(user), {
        status: 201,
        headers: { ...NO_STORE, Location: `/internal/users/${user.id}` },
      });
    },
    "GET /internal/users": async (r) => {
      const { after, limit } = parseListQuery(new URL(r.req.url).searchParams);
      // One extra row says whether another page exists, without counting the rest.
      const page = await users.list(after, limit + 1);
      const more = page.length > limit;
      const shown = more ? page.slice(0, limit) : page;
      return json({
        users: shown.map(userView),
        next_cursor: more ? encodeCursor(shown[shown.length - 1]!.id) : null,
      });
    },
    "GET /internal/users/{id}": async (r) => json(userView(await mustGet(r.params.id!))),
    "PATCH /internal/users/{id}": async (r) => {
      const patch = parseUserPatch(await body(r.req));
      let before = "";
      const user = await mustUpdate(r.params.id!, (u) => {
        before = u.status;
        return { ...u, ...patch };
      });
      const revoked = await revokeIfDeleted(user);
      audit(r, "user.update", {
        user: user.id,
        fields: Object.keys(patch),
        ...(patch.status === undefined ? {} : { status: patch.status, from: before }),
        ...(revoked > 0 ? { revoked_sessions: revoked } : {}),
      });
      return json(userView(user));
    },
    "DELETE /internal/users/{id}": async (r) => {
      let before = "";
      const user = await mustUpdate(r.params.id!, (u) => {
        before = u.status;
        return { ...u, status: "Deleted" };
      });
      // Status first, then sessions: a refresh racing the delete is refused on its next use.
      const revoked = await sessions.revokeAllOfUser(user.id, deps.clock.now());
      audit(r, "user.delete", { user: user.id, from: before, revoked_sessions: revoked });
      return json(userView(user));
    },
    "GET /internal/users/{id}/claims": async (r) => json((await mustGet(r.params.id!)).claims),
    "PUT /internal/users/{id}/claims": async (r) => {
      const claims = parseClaims(await body(r.req), "body");
      const user = await mustUpdate(r.params.id!, (u) => ({ ...u, claims }));
      audit(r, "claims.replace", { user: user.id, claims: Object.keys(claims) });
      return json(user.claims);
    },
    "PATCH /internal/users/{id}/claims": async (r) => {
      const patch = parseClaims(await body(r.req), "body", "merge");
      const user = await mustUpdate(r.params.id!, (u) => {
        const claims = mergeClaims(u.claims, patch);
        checkClaimsSize(claims);
        return { ...u, claims };
      });
      audit(r, "claims.merge", { user: user.id, claims: Object.keys(patch) });
      return json(user.claims);
    },
    "DELETE /internal/users/{id}/claims": async (r) => {
      const user = await mustUpdate(r.params.id!, (u) => ({ ...u, claims: {} }));
      audit(r, "claims.clear", { user: user.id });
      return json(user.claims);
    },
  };
}
