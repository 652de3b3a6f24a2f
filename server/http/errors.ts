import type { Logger } from "@org/shared";
import { OAuthError, serverError } from "../errors.ts";
import { jsonResponse, NO_STORE } from "./json_response.ts";

/**
 * Turns anything thrown into the `{error, error_description}` response. The only place that
 * decides what a caller sees: unexpected errors become 500 `server_error` with a generic
 * message, and their detail goes to `log` only.
 *
 * @param err the thrown value
 * @param log where server-side detail is written
 * @returns the JSON error response (`Cache-Control: no-store`)
 *
 * @example
 * ```ts
 * import type { Logger } from "@org/shared";
 *
 * async function answer(route: (req: Request) => Promise<Response>, req: Request, log: Logger) {
 *   try { return await route(req); } catch (err) { return errorResponse(err, log); }
 * }
 * ```
 */
export function errorResponse(err: unknown, log: Logger): Response {
  const e = err instanceof OAuthError ? err : serverError(500, err);
  if (e.code === "server_error") {
    log.error("request failed", { status: e.status, detail: e.detail ?? e });
  } else if (e.detail !== undefined) {
    // A client-side failure with a cause worth seeing when debugging (a dropped connection).
    log.debug("request refused", { status: e.status, error: e.code, detail: e.detail });
  }
  return jsonResponse(
    { error: e.code, error_description: e.description },
    e.status,
    ERROR_HEADERS,
    e.headers,
  );
}

/** Every error answer: `Cache-Control: no-store`. */
const ERROR_HEADERS = NO_STORE;

/** The description of the 503 answered while the service is still starting. */
export const STARTING_DESCRIPTION = "The service is starting; retry shortly";

/**
 * The answer of a listener that is bound but not ready yet (keys and store still loading):
 * 503 `{error: "server_error", error_description}` with `Retry-After: 1`, like every other
 * error body, so clients and load balancers parse it the same way. Nothing is logged: this is
 * expected for a moment at every start.
 *
 * @returns the 503 response
 */
export function startingResponse(): Response {
  return Response.json({ error: "server_error", error_description: STARTING_DESCRIPTION }, {
    status: 503,
    headers: { ...NO_STORE, "Retry-After": "1" },
  });
}
