import type { ServiceDeps } from "../deps.ts";
import { errorResponse } from "./errors.ts";
import { createRouter, type RequestInfo, type Route } from "./router.ts";

/**
 * Builds the internal (admin) listener's handler. It is only served when `server.role` is
 * `admin` or `all` and `internal_api.enabled` is true (see `listenersFor`); the operator
 * authentication gate and the `/internal/*` routes are added by the internal-API issue.
 *
 * @param deps the service dependencies
 * @returns a `fetch`-style handler for `Deno.serve`
 */
export function createInternalHandler(
  deps: ServiceDeps,
): (req: Request, info: RequestInfo) => Promise<Response> {
  const routes: Route[] = [];
  const route = createRouter(routes);
  return async (req, info) => {
    try {
      return await route(req, info);
    } catch (err) {
      return errorResponse(err, deps.log);
    }
  };
}
