import { internalRoutes } from "../admin/internal_routes.ts";
import { AdminOperations } from "../admin/operations.ts";
import { createOperatorGate, credentialOf } from "../auth/operator_gate.ts";
import { consoleGroup } from "../console/console_handler.ts";
import { requestSource } from "../console/csrf.ts";
import type { ServiceDeps } from "../deps.ts";
import { accessDenied, notFound } from "../errors.ts";
import { createListenerHandler } from "../http/dispatch.ts";
import { health } from "./health.ts";
import { createRouter, guardedGroup, type RequestInfo, type RouteGroup } from "../http/router.ts";

/**
 * Builds the internal (admin) listener's handler. The listener runs when `server.role` is
 * `admin` or `all` and `internal_api.enabled` is true, and also for `role = "admin"` with the
 * API disabled (see `listenersFor`); the `/internal/*` routes exist only when
 * `routes` is true, so they exist nowhere else.
 *
 * `GET /health` is answered without authentication, so a health check never counts toward the
 * lockout, and so is `/favicon.ico` (404), which browsers ask for by themselves. A request a
 * browser sends on behalf of another site (`requestSource` says `foreign`: `Sec-Fetch-Site:
 * cross-site` or `same-site`, `Origin: null`, or another `Origin` from a browser without
 * `Sec-Fetch-Site`) is refused with 403 `access_denied` before the gate: any
 * web page could otherwise spend the operators' lockout budget and lock them out. Every other
 * request passes the operator gate (lockout check, then the configured
 * mechanisms in order), unknown paths included: an unauthenticated caller learns nothing
 * about which routes exist. The authenticated principal is the routes' context, and named in
 * the audit log line of every change. Without `routes`, every other path is 404.
 * Every response carries `X-Request-Id`, and every log line of the request its `request_id`.
 * With `routes`, the operator console is served under `/admin/` (`console/console_handler.ts`):
 * its pages authenticate by session cookie, and its login passes the same gate. The API and
 * the console call the same operations (`admin/operations.ts`).
 *
 * @param service the service dependencies
 * @param routes whether the internal API routes are served (`listenersFor(config).internalApi`)
 * @returns a `fetch`-style handler for `Deno.serve`
 *
 * @example
 * ```ts
 * import type { ServiceDeps } from "../deps.ts";
 *
 * async function stats(deps: ServiceDeps, operatorToken: string) {
 *   const handler = createInternalHandler(deps);
 *   return await handler(new Request("http://127.0.0.1/internal/stats", {
 *     headers: { authorization: `Bearer ${operatorToken}` },
 *   }), { remoteAddr: { hostname: "127.0.0.1", port: 50000 } });
 * }
 * ```
 */
export function createInternalHandler(
  service: ServiceDeps,
  routes = true,
): (req: Request, info: RequestInfo) => Promise<Response> {
  return createListenerHandler("internal", service, (deps, ids) => {
    const groups: RouteGroup[] = [];
    // Without the API there is nothing to protect, and no credential to count against.
    if (routes) {
      const gate = createOperatorGate(deps);
      const operations = new AdminOperations({ ...deps, ids });
      // Console pages authenticate by session cookie; their sign-in goes through the gate.
      groups.push(consoleGroup({ service: deps, gate, operations }));
      groups.push(
        guardedGroup("", async (req, info) => {
          // The console's rule: anything a browser sent for another site (Origin: null too).
          if (requestSource(new URL(req.url).origin, req.headers) === "foreign") {
            throw accessDenied("Requests sent by a browser on behalf of another site are refused");
          }
          return { operator: await gate(credentialOf(req, info)) };
        }, internalRoutes(operations, deps)),
      );
    }
    return {
      match: createRouter(
        [
          { method: "GET", path: "/health", handler: () => health(deps) },
          { method: "GET", path: "/favicon.ico", handler: () => Promise.reject(notFound()) },
        ],
        groups,
      ),
    };
  });
}
