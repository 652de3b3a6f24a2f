import type { Grant, GrantContext } from "../grants/grant.ts";
import { readForm } from "./body.ts";
import { clip, unsupportedGrantType } from "../errors.ts";
import { jsonResponse, TOKEN_HEADERS } from "./json_response.ts";

/**
 * `POST /token`: reads the form (within `server.body_timeout`), refuses an `id_token` field unless the `id_token` grant is
 * served, and dispatches on `grant_type` (absent, empty or unknown → `unsupported_grant_type`).
 *
 * @param grants the served grants by `grant_type`
 * @param ctx what grants depend on
 * @returns the route handler
 */
export function createTokenEndpoint(
  grants: ReadonlyMap<string, Grant>,
  ctx: GrantContext,
): (req: Request) => Promise<Response> {
  return async (req) => {
    const params = await readForm(req, ctx.config.server.body_timeout);
    if (params.has("id_token") && !grants.has("id_token")) {
      throw unsupportedGrantType("The id_token grant is not enabled");
    }
    const type = params.get("grant_type") ?? "";
    const grant = grants.get(type);
    if (!grant) {
      throw unsupportedGrantType(
        type === "" ? "Missing grant_type" : `Unsupported grant_type ${clip(type)}`,
      );
    }
    const body = await grant(params, ctx);
    ctx.metrics.tokenIssued(type);
    return jsonResponse(body, 200, TOKEN_HEADERS);
  };
}
