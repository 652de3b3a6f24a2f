import type { ServiceDeps } from "../deps.ts";
import { revokeToken } from "../sessions/revoke.ts";
import { readForm } from "../http/body.ts";
import { invalidRequest } from "../errors.ts";
import { emptyResponse, TOKEN_HEADERS } from "../http/json_response.ts";

/**
 * `POST /revoke` (RFC 7009): form `token` (required) and `token_type_hint` (optional, a hint
 * only). Answers 200 with an empty body whether or not the token named a live session, so a
 * caller learns nothing about tokens it does not hold. An empty `token=` is such a token (it
 * names nothing); only an absent `token` parameter is a malformed request (RFC 7009 §2.1
 * makes it REQUIRED; §2.2.1 answers with the RFC 6749 error response).
 *
 * @param deps the service dependencies
 * @returns the route handler
 * @throws {OAuthError} 400 `invalid_request` without a `token` parameter or with a malformed body
 */
export function createRevokeEndpoint(deps: ServiceDeps): (req: Request) => Promise<Response> {
  return async (req) => {
    const params = await readForm(req, deps.config.server.body_timeout);
    const token = params.get("token");
    if (token === undefined) throw invalidRequest("Missing parameter token");
    if (token !== "") await revokeToken(deps, token, params.get("token_type_hint"));
    return emptyResponse(200, TOKEN_HEADERS);
  };
}
