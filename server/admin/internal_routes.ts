/**
 * The routes of the internal API (`/internal/…`): each parses its request (`user_input.ts`),
 * calls one admin operation (`operations.ts`) with the operator the gate named, and answers the
 * result as JSON. They sit behind the operator gate (`endpoints/internal_handler.ts`).
 *
 * @module
 */
import type { OperatorPrincipal } from "../auth/operator_gate.ts";
import type { ServiceDeps } from "../deps.ts";
import { invalidRequest } from "../errors.ts";
import { readCapped, readForm } from "../http/body.ts";
import { jsonResponse, NO_STORE, TOKEN_HEADERS } from "../http/json_response.ts";
import type { Route } from "../http/router.ts";
import { introspectToken } from "../sessions/introspect.ts";
import type { AdminOperations } from "./operations.ts";
import { parseAuditQuery, parseDeliveryQuery } from "./list_queries.ts";
import { MAX_IMPORT_BYTES } from "./user_import.ts";
import {
  parseClaims,
  parseJsonObject,
  parseListQuery,
  parseNewUser,
  parseUserPatch,
} from "./user_input.ts";

/**
 * Seconds an import body may take to arrive: tens of MiB from an operator's machine, longer
 * than `server.body_timeout` allows a form.
 */
const IMPORT_BODY_TIMEOUT = 300;

/** Largest JSON body of an internal request (bytes). */
export const MAX_JSON_BYTES = 64 * 1024;

/** What an internal route knows besides the request: the operator the gate named. */
export interface OperatorContext {
  readonly operator: OperatorPrincipal;
}

/** What the routes depend on besides the operations. */
export type InternalRouteDeps = Pick<
  ServiceDeps,
  "config" | "store" | "keys" | "clock" | "metrics"
>;

const json = (body: unknown, status = 200) => Response.json(body, { status, headers: NO_STORE });

/**
 * The internal API's route table.
 *
 * - users and claims: `/internal/users`, `/internal/users/{id}`, `…/{id}/claims`;
 * - sessions: `GET /internal/users/{id}/sessions` (`{sessions: [SessionView…]}`, live ones,
 *   oldest first) and `DELETE /internal/users/{id}/sessions/{sid}` (`{id, revoked: true}`);
 * - `GET /internal/audit` (`{records, next_cursor}`, newest first, filtered by `actor`,
 *   `action`, `user`, `from`, `to`);
 * - `GET /internal/webhooks/deliveries` (`{deliveries, next_cursor}`, newest first, filtered
 *   by `endpoint`, `type`, `state`) and `POST /internal/webhooks/deliveries/{id}/redeliver`
 *   (202 with the delivery, queued again; idempotent while it is pending);
 * - `GET /internal/stats`, `POST /internal/sessions/cleanup` (one bounded batch of the sweep
 *   `serve` also runs hourly: `{deleted: N}`), `GET /internal/metrics` (Prometheus text);
 * - `POST /internal/introspect` (RFC 7662): the form-encoded `token` (required; an empty one
 *   is simply inactive) and `token_type_hint`; `{active: false}` for anything not live.
 *
 * @param ops the admin operations
 * @param deps config, store, keys, clock and metrics
 * @returns the routes, each given the operator
 */
export function internalRoutes(
  ops: AdminOperations,
  deps: InternalRouteDeps,
): Route<OperatorContext>[] {
  const body = async (req: Request) =>
    parseJsonObject(await readCapped(req, MAX_JSON_BYTES, deps.config.server.body_timeout));
  const routes: Array<[string, string, Route<OperatorContext>["handler"]]> = [
    ["POST", "/internal/users", async (req, _info, _params, { operator }) => {
      const user = await ops.createUser(operator, parseNewUser(await body(req)));
      return Response.json(user, {
        status: 201,
        headers: { ...NO_STORE, Location: `/internal/users/${user.id}` },
      });
    }],
    ["POST", "/internal/users/import", async (req, _info, _params, { operator }) => {
      const text = await readCapped(req, MAX_IMPORT_BYTES, IMPORT_BODY_TIMEOUT);
      const report = await ops.importUsers(operator, text);
      if (report.written) return json(report);
      const malformed = report.problems.some((p) => p.malformed);
      return json({
        error: malformed ? "invalid_request" : "conflict",
        error_description: `${report.problems.length} line(s) cannot be imported; nothing was ` +
          "written (see problems)",
        ...report,
      }, malformed ? 400 : 409);
    }],
    ["GET", "/internal/users/export", () => {
      const lines = ops.exportUsers();
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = await lines.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(next.value + "\n"));
        },
        async cancel() {
          await lines.return(undefined);
        },
      });
      return new Response(body, {
        headers: { ...NO_STORE, "Content-Type": "application/x-ndjson; charset=utf-8" },
      });
    }],
    ["GET", "/internal/users", async (req) => {
      const { after, limit } = parseListQuery(new URL(req.url).searchParams);
      return json(await ops.listUsers(after, limit));
    }],
    ["GET", "/internal/users/{id}", async (_req, _info, p) => json(await ops.getUser(p.id!))],
    ["PATCH", "/internal/users/{id}", async (req, _info, p, { operator }) => {
      const patch = parseUserPatch(await body(req));
      return json(await ops.patchUser(operator, p.id!, patch));
    }],
    [
      "DELETE",
      "/internal/users/{id}",
      async (_req, _info, p, { operator }) => json(await ops.deleteUser(operator, p.id!)),
    ],
    [
      "GET",
      "/internal/users/{id}/claims",
      async (_req, _info, p) => json(await ops.getClaims(p.id!)),
    ],
    ["PUT", "/internal/users/{id}/claims", async (req, _info, p, { operator }) => {
      const claims = parseClaims(await body(req), "body");
      return json(await ops.replaceClaims(operator, p.id!, claims));
    }],
    ["PATCH", "/internal/users/{id}/claims", async (req, _info, p, { operator }) => {
      const patch = parseClaims(await body(req), "body", "merge");
      return json(await ops.mergeClaims(operator, p.id!, patch));
    }],
    [
      "DELETE",
      "/internal/users/{id}/claims",
      async (_req, _info, p, { operator }) => json(await ops.clearClaims(operator, p.id!)),
    ],
    [
      "GET",
      "/internal/users/{id}/sessions",
      async (_req, _info, p) => json({ sessions: await ops.listSessions(p.id!) }),
    ],
    ["DELETE", "/internal/users/{id}/sessions/{sid}", async (_req, _info, p, { operator }) => {
      await ops.revokeSession(operator, p.id!, p.sid!);
      return json({ id: p.sid!, revoked: true });
    }],
    ["GET", "/internal/audit", async (req) => {
      const { query, limit } = parseAuditQuery(new URL(req.url).searchParams);
      return json(await ops.listAudit(query, limit));
    }],
    ["GET", "/internal/webhooks/deliveries", async (req) => {
      const { query, limit } = parseDeliveryQuery(new URL(req.url).searchParams);
      return json(await ops.listDeliveries(query, limit));
    }],
    [
      "POST",
      "/internal/webhooks/deliveries/{id}/redeliver",
      async (_req, _info, p, { operator }) => json(await ops.redeliver(operator, p.id!), 202),
    ],
    ["GET", "/internal/stats", async () => json(await ops.stats())],
    [
      "POST",
      "/internal/sessions/cleanup",
      async (_req, _info, _p, { operator }) => json({ deleted: await ops.sweepExpired(operator) }),
    ],
    ["GET", "/internal/metrics", () =>
      new Response(deps.metrics.render(), {
        headers: { ...NO_STORE, "Content-Type": "text/plain; version=0.0.4; charset=utf-8" },
      })],
    ["POST", "/internal/introspect", async (req) => {
      // A slow body is cut off as on every other body-reading route (408), not held open.
      const params = await readForm(req, deps.config.server.body_timeout);
      const token = params.get("token");
      if (token === undefined) throw invalidRequest("Missing parameter token");
      const answer = token === ""
        ? { active: false }
        : await introspectToken(deps, token, params.get("token_type_hint"));
      // Resource servers may ask on every API call: the cheap response builder, no caching.
      return jsonResponse(answer, 200, TOKEN_HEADERS);
    }],
  ];
  return routes.map(([method, path, handler]) => ({ method, path, handler }));
}
