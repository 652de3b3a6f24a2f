/**
 * `POST /internal/introspect` (RFC 7662): token introspection for resource servers, on the
 * internal listener behind operator authentication.
 *
 * @module
 */
import type { ServiceDeps } from "../deps.ts";
import { invalidRequest } from "../errors.ts";
import { readForm } from "../http/body.ts";
import { jsonResponse, TOKEN_HEADERS } from "../http/json_response.ts";
import { introspectToken } from "../sessions/introspect.ts";
import type { OperatorHandler } from "./user_routes.ts";

/**
 * The introspection route, by `METHOD pattern`. The body is form-encoded, as RFC 7662 §2.1
 * defines it: `token` (required; an empty one is simply inactive) and `token_type_hint`
 * (optional, a hint only). The answer is `{active: false}` for anything not live, never saying
 * why; see {@linkcode introspectToken}.
 *
 * @param deps config, store, keys and clock
 * @returns the handler
 * @throws {OAuthError} 400 `invalid_request` without a `token` parameter or with a malformed
 *   body
 */
export function introspectRoutes(
  deps: Pick<ServiceDeps, "config" | "store" | "keys" | "clock">,
): Record<string, OperatorHandler> {
  return {
    "POST /internal/introspect": async (r) => {
      // A slow body is cut off as on every other body-reading route (408), not held open.
      const params = await readForm(r.req, deps.config.server.body_timeout);
      const token = params.get("token");
      if (token === undefined) throw invalidRequest("Missing parameter token");
      const answer = token === ""
        ? { active: false }
        : await introspectToken(deps, token, params.get("token_type_hint"));
      // Resource servers may ask on every API call: the cheap response builder, no caching.
      return jsonResponse(answer, 200, TOKEN_HEADERS);
    },
  };
}
