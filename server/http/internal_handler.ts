import { introspectRoutes } from "../admin/introspect_route.ts";
import { opsRoutes } from "../admin/ops_routes.ts";
import { sessionRoutes } from "../admin/session_routes.ts";
import { type OperatorHandler, userRoutes } from "../admin/user_routes.ts";
import { createOperatorGate } from "../auth/operator_gate.ts";
import { consoleRoutes } from "../console/console_handler.ts";
import type { ServiceDeps } from "../deps.ts";
import { createIdFactory } from "../store/ids.ts";
import { errorResponse } from "./errors.ts";
import { health } from "./health.ts";
import { createRequestIds } from "./request_id.ts";
import { createRouter, pathOf, type RequestInfo, type Route, UNMATCHED } from "./router.ts";

/**
 * Builds the internal (admin) listener's handler. The listener runs when `server.role` is
 * `admin` or `all` and `internal_api.enabled` is true, and also for `role = "admin"` with the
 * API disabled (see `listenersFor`); the `/internal/*` routes exist only when
 * `routes` is true, so they exist nowhere else.
 *
 * `GET /health` is answered first, without authentication, so a health check never counts
 * toward the lockout. Every other request passes the operator gate (lockout check, then the
 * configured mechanisms in order), unknown paths included: an unauthenticated caller learns
 * nothing about which routes exist. The authenticated principal is handed to the route and
 * named in the audit log line of every change. Without `routes`, every other path is 404.
 * Every response carries `X-Request-Id`, and every log line of the request its `request_id`.
 * With `routes`, the operator console is served under `/admin/` (`console/console_handler.ts`):
 * its pages authenticate by session cookie, and its login passes the same gate.
 *
 * @param service the service dependencies
 * @param routes whether the internal API routes are served (`listenersFor(config).internalApi`)
 * @returns a `fetch`-style handler for `Deno.serve`
 *
 * @example
 * ```ts
 * const handler = createInternalHandler(deps);
 * const res = await handler(new Request("http://127.0.0.1/internal/stats", {
 *   headers: { authorization: `Bearer ${operatorToken}` },
 * }), { remoteAddr: { hostname: "127.0.0.1", port: 50000 } });
 * ```
 */
export function createInternalHandler(
  service: ServiceDeps,
  routes = true,
): (req: Request, info: RequestInfo) => Promise<Response> {
  const ids = createIdFactory(service.clock, service.random);
  const requestIds = createRequestIds(service.log, ids.ulid);
  // Everything below logs through the request-scoped logger, so its lines carry request_id.
  const deps: ServiceDeps = { ...service, log: requestIds.log };
  const gate = createOperatorGate(deps);
  const handlers: Record<string, OperatorHandler> = routes
    ? {
      ...userRoutes({ ...deps, ids }),
      ...opsRoutes(deps),
      ...introspectRoutes(deps),
      ...sessionRoutes(deps),
    }
    : {};
  // The console is another front end on the same operations, behind the same gate.
  const matchConsole = routes
    ? createRouter(consoleRoutes({ service: deps, gate, operations: handlers }))
    : undefined;
  const operators = new WeakMap<Request, Awaited<ReturnType<typeof gate>>>();
  const table: Route[] = Object.entries(handlers).map(([key, handler]) => {
    const [method, path] = key.split(" ") as [string, string];
    return {
      method,
      path,
      handler: (req, _info, params) => handler({ req, params, operator: operators.get(req)! }),
    };
  });
  const match = createRouter(table);
  const matchHealth = createRouter([{
    method: "GET",
    path: "/health",
    handler: () => health(deps),
  }]);
  return requestIds.wrap(async (req, info) => {
    const started = performance.now();
    let route = UNMATCHED;
    let res: Response;
    try {
      const path = pathOf(req.url);
      if (path === "/health") {
        const m = matchHealth(req);
        route = m.route;
        res = await m.handler(req, info, m.params);
      } else if (matchConsole && (path === "/admin" || path.startsWith("/admin/"))) {
        // Console pages authenticate by session cookie; their login goes through the gate.
        const m = matchConsole(req);
        route = m.route;
        res = await m.handler(req, info, m.params);
      } else {
        const m = match(req);
        route = m.route;
        // Without the API there is nothing to protect, and no credential to count against.
        if (routes) operators.set(req, await gate(req, info));
        res = await m.handler(req, info, m.params);
      }
    } catch (err) {
      res = errorResponse(err, deps.log);
    }
    deps.metrics.observeRequest(
      "internal",
      route,
      res.status,
      (performance.now() - started) / 1000,
    );
    return res;
  });
}
