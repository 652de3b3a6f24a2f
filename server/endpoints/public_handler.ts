import type { DepsWith, ServiceDeps } from "../deps.ts";
import type { Grant } from "../grants/grant.ts";
import { enabledGrants, tracedGrants } from "../grants/registry.ts";
import { slowDown } from "../errors.ts";
import { createListenerHandler, type ListenerRoutes } from "../http/dispatch.ts";
import { health } from "./health.ts";
import { createNonceEndpoint } from "./nonce_endpoint.ts";
import { createRevokeEndpoint } from "./revoke_endpoint.ts";
import { CORS_ROUTES, createCors } from "../http/cors.ts";
import { createRouter, type RequestInfo, type Route, type RouteMatch } from "../http/router.ts";
import { createAddressSet } from "../limits/address_set.ts";
import { clientAddress, type ForwardedRule } from "../limits/client_address.ts";
import { ConcurrencyLimiter } from "../limits/concurrency_limiter.ts";
import { RateLimiter } from "../limits/rate_limiter.ts";
import { createTokenEndpoint } from "./token_endpoint.ts";
import { sessionsRoutes } from "./sessions_endpoint.ts";
import { DPOP_ALGORITHMS } from "../dpop/proof.ts";
import { createAppleNotificationsEndpoint } from "./apple_notifications_endpoint.ts";

/** Seconds `/keys` may be cached: well below the shortest time a retired key stays published. */
export function jwksMaxAge(accessTokenTtl: number): number {
  return Math.max(1, Math.min(300, Math.floor(accessTokenTtl / 4)));
}

/**
 * Builds the public listener's handler: `/token`, `/revoke`, `/keys`, discovery, `/health`,
 * the user's own `/sessions`,
 * with the `id_token` grant on `/nonce`, and with a Sign in with Apple provider
 * `/apple/notifications`; unknown
 * paths 404 and wrong methods 405 with `Allow`, every error as `{error, error_description}`.
 * Every response carries `X-Request-Id`, and every log line of the request its `request_id`.
 * With `server.cors_origins`, `/token`, `/revoke`, `/nonce` and `/sessions` answer CORS (see
 * `cors.ts`).
 *
 * @param service the service dependencies
 * @param grants the grants `/token` serves (default: {@linkcode enabledGrants} of the config;
 *   the HTTP-layer benchmark passes a stub to measure everything but the grant)
 * @returns a `fetch`-style handler for `Deno.serve`
 *
 * @example
 * ```ts
 * import type { ServiceDeps } from "../deps.ts";
 * import type { RequestInfo } from "../http/router.ts";
 *
 * async function keys(deps: ServiceDeps, info: RequestInfo) {
 *   const handler = createPublicHandler(deps);
 *   return await handler(new Request("http://127.0.0.1/keys"), info);
 * }
 * ```
 */
export function createPublicHandler(
  service: ServiceDeps,
  grants: ReadonlyMap<string, Grant> = enabledGrants(service.config),
): (req: Request, info: RequestInfo) => Promise<Response> {
  return createListenerHandler("public", service, (deps, ids) => {
    const ctx = { ...deps, ids };
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
      ...(deps.config.token.dpop === "off"
        ? {}
        : { dpop_signing_alg_values_supported: DPOP_ALGORITHMS }),
    };
    const cache = (seconds: number) => ({ "Cache-Control": `public, max-age=${seconds}` });
    const routes: Route[] = [
      {
        method: "POST",
        path: "/token",
        handler: createTokenEndpoint(
          deps.tracing === undefined ? grants : tracedGrants(grants, deps.tracing),
          ctx,
        ),
      },
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
      ...sessionsRoutes(deps),
      ...(grants.has("id_token")
        ? [{ method: "POST", path: "/nonce", handler: createNonceEndpoint(deps) }]
        : []),
    ];
    const appleNotifications = createAppleNotificationsEndpoint(deps);
    if (appleNotifications) {
      routes.push({ method: "POST", path: "/apple/notifications", handler: appleNotifications });
    }
    const cors = createCors(deps.config.server.cors_origins);
    if (cors) {
      for (const r of [...routes]) {
        const route = CORS_ROUTES.get(r.path);
        if (route) {
          routes.push({
            method: "OPTIONS",
            path: r.path,
            handler: (req) => cors.preflight(req, route),
          });
        }
      }
    }
    return {
      match: createRouter(routes),
      ...admission(deps),
      // Errors too: a page must be able to read why its request was refused.
      ...(cors && {
        finish: (m: RouteMatch, req: Request, res: Response) => {
          const route = CORS_ROUTES.get(m.pattern);
          if (route && req.method !== "OPTIONS") cors.decorate(req, res, route);
        },
      }),
    };
  });
}

/** Paths `rate_limit` applies to, whatever the method but a CORS preflight's `OPTIONS`. */
const LIMITED_PATHS: ReadonlySet<string> = new Set([
  "/token",
  "/revoke",
  "/nonce",
  "/sessions",
  "/sessions/{id}",
]);

/**
 * The public limits (`rate_limit.*`) on `/token`, `/revoke`, `/nonce` and `/sessions`: a check that throws
 * 429 `slow_down` with `Retry-After` once a client address used up its window, or when it
 * already has `rate_limit.max_concurrent` requests in progress (a slow client trickling bodies);
 * otherwise the admitted request, whose slot the caller gives back when it is answered.
 * None when `rate_limit.enabled` is false.
 */
function admission(
  deps: DepsWith<"config" | "clock" | "metrics", "rateLimits">,
): Pick<ListenerRoutes, "admit"> {
  const rl = deps.config.rate_limit;
  if (!rl.enabled) return {};
  const limiter = new RateLimiter(deps.clock, rl.requests, rl.window * 1000, deps.store.rateLimits);
  const slots = new ConcurrencyLimiter(rl.max_concurrent);
  const rule: ForwardedRule = {
    header: rl.client_ip_header,
    trustedProxies: createAddressSet(rl.trusted_proxies),
  };
  const admit = async ({ pattern }: RouteMatch, req: Request, info: RequestInfo) => {
    // A CORS preflight costs nothing to answer, and a refused one would hide Retry-After
    // from the page (browsers give a failed preflight's answer to no one).
    if (!LIMITED_PATHS.has(pattern) || req.method === "OPTIONS") return undefined;
    const client = clientAddress(info.remoteAddr.hostname, req.headers, rule);
    const d = await limiter.take(client);
    if (!d.allowed) {
      deps.metrics.rateLimited();
      throw slowDown(
        "Too many requests from this client; retry after the delay in Retry-After",
        d.retryAfterSeconds,
      );
    }
    const key = slots.enter(client);
    if (key === undefined) {
      deps.metrics.rateLimited();
      throw slowDown("Too many requests in progress from this client; retry shortly", 1);
    }
    return { leave: () => slots.leave(key) };
  };
  return { admit };
}
