import type { ServiceDeps } from "../deps.ts";
import { enabledGrants } from "../grants/registry.ts";
import { createIdFactory } from "../store/ids.ts";
import { errorResponse } from "./errors.ts";
import { createNonceEndpoint } from "./nonce_endpoint.ts";
import { createRevokeEndpoint } from "./revoke_endpoint.ts";
import { createRouter, type RequestInfo, type Route } from "./router.ts";
import { createTokenEndpoint } from "./token_endpoint.ts";

/** Seconds `/keys` may be cached: well below the shortest time a retired key stays published. */
export function jwksMaxAge(accessTokenTtl: number): number {
  return Math.max(1, Math.min(300, Math.floor(accessTokenTtl / 4)));
}

/**
 * Builds the public listener's handler: `/token`, `/revoke`, `/keys`, discovery, `/health`
 * and, with the `id_token` grant on, `/nonce`; unknown
 * paths 404 and wrong methods 405 with `Allow`, every error as `{error, error_description}`.
 *
 * @param deps the service dependencies
 * @returns a `fetch`-style handler for `Deno.serve`
 *
 * @example
 * ```ts
 * const handler = createPublicHandler(deps);
 * const res = await handler(new Request("http://127.0.0.1/keys"), info);
 * ```
 */
export function createPublicHandler(
  deps: ServiceDeps,
): (req: Request, info: RequestInfo) => Promise<Response> {
  const grants = enabledGrants(deps.config);
  const ctx = { ...deps, ids: createIdFactory(deps.clock, deps.random) };
  const issuer = deps.config.server.issuer;
  const discovery = {
    issuer,
    jwks_uri: `${issuer}/keys`,
    token_endpoint: `${issuer}/token`,
    revocation_endpoint: `${issuer}/revoke`,
    grant_types_supported: [...grants.keys()],
    response_types_supported: ["code"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: deps.keys.algorithms,
    token_endpoint_auth_methods_supported: ["none"],
  };
  const cache = (seconds: number) => ({ "Cache-Control": `public, max-age=${seconds}` });
  const routes: Route[] = [
    { method: "POST", path: "/token", handler: createTokenEndpoint(grants, ctx) },
    { method: "POST", path: "/revoke", handler: createRevokeEndpoint(deps) },
    {
      method: "GET",
      path: "/keys",
      handler: () =>
        Response.json(deps.keys.jwks(), {
          headers: cache(jwksMaxAge(deps.config.token.access_token_ttl)),
        }),
    },
    {
      method: "GET",
      path: "/.well-known/openid-configuration",
      handler: () => Response.json(discovery, { headers: cache(300) }),
    },
    { method: "GET", path: "/health", handler: () => health(deps) },
    ...(grants.has("id_token")
      ? [{ method: "POST", path: "/nonce", handler: createNonceEndpoint(deps) }]
      : []),
  ];
  const route = createRouter(routes);
  return async (req, info) => {
    try {
      return await route(req, info);
    } catch (err) {
      return errorResponse(err, deps.log);
    }
  };
}

async function health(deps: Pick<ServiceDeps, "store" | "log">): Promise<Response> {
  const headers = { "Cache-Control": "no-store" };
  try {
    await withTimeout(deps.store.ping(), 2000);
    return Response.json({ status: "ok", store: "ok" }, { headers });
  } catch (err) {
    deps.log.error("health check: store does not answer", { err });
    return Response.json({ status: "unavailable", store: "unavailable" }, {
      status: 503,
      headers,
    });
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
