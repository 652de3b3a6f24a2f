/**
 * CORS for browser apps (`server.cors_origins`): pages on the listed origins may call
 * `POST /token`, `POST /revoke` and `POST /nonce`, and with the user's access token
 * `GET /sessions` and `DELETE /sessions/{id}`, and read the answers. Nothing else is
 * cross-origin: discovery and `/keys` are fetched by servers, and the internal listener never
 * answers a browser.
 *
 * Exact origins only, compared as the browser sends them; an origin not listed gets no CORS
 * header at all, so its page cannot read any answer. No `Access-Control-Allow-Credentials`:
 * these endpoints take no cookies (the tokens travel in the form body or the `Authorization`
 * header the page sets itself), so a page never needs to send credentials and the browser never
 * attaches ours.
 *
 * @module
 */

/** What a page of a listed origin may do on one path. */
export interface CorsRoute {
  /** The one method it may call there (the preflight allows no other). */
  readonly method: string;
  /** Request headers it may send beyond the CORS-safelisted ones. */
  readonly allowHeaders: string;
  /** Response headers it may read beyond the safelisted ones. */
  readonly exposeHeaders: string;
}

/** The form endpoints: a 429's delay, the request id and the DPoP nonce are readable. */
const FORM_POST: CorsRoute = {
  method: "POST",
  allowHeaders: "Content-Type, X-Request-Id, DPoP",
  exposeHeaders: "Retry-After, X-Request-Id, DPoP-Nonce",
};

/** An endpoint authorised by the user's access token, whose 401 explains itself in a header. */
function withAccessToken(method: string): CorsRoute {
  return {
    method,
    allowHeaders: "Authorization, X-Request-Id, DPoP",
    exposeHeaders: "Retry-After, X-Request-Id, DPoP-Nonce, WWW-Authenticate",
  };
}

/**
 * The paths a listed origin may call from a browser, as the route table writes them (each only
 * if the listener serves it).
 */
export const CORS_ROUTES: ReadonlyMap<string, CorsRoute> = new Map([
  ["/token", FORM_POST],
  ["/revoke", FORM_POST],
  ["/nonce", FORM_POST],
  ["/sessions", withAccessToken("GET")],
  ["/sessions/{id}", withAccessToken("DELETE")],
]);

/**
 * Seconds a browser may cache a preflight answer: two hours, the most Chromium honours.
 * Removing an origin still takes effect at once: the real answer then lacks
 * `Access-Control-Allow-Origin`, and the browser withholds it.
 */
export const PREFLIGHT_MAX_AGE = 7200;

/** CORS for the public listener. */
export interface Cors {
  /**
   * The answer to `OPTIONS` on a CORS path: 204 with `Allow`, plus the preflight headers when
   * the origin is listed and asks for the path's method.
   */
  preflight(req: Request, route: CorsRoute): Response;
  /**
   * Adds to `res` (the answer to a request on a CORS path) `Vary: Origin`, and for a listed
   * origin `Access-Control-Allow-Origin` and `-Expose-Headers`.
   */
  decorate(req: Request, res: Response, route: CorsRoute): void;
}

/**
 * The CORS response headers for one request: what {@linkcode Cors} adds, as data.
 *
 * @param allowed the listed origins (as browsers send them)
 * @param origin the request's `Origin` header
 * @param preflightMethod for a preflight, its `Access-Control-Request-Method`; else undefined
 * @param route what the path allows
 * @returns the header fields to set (always `Vary: Origin`: the answer depends on it)
 *
 * @example
 * ```ts
 * corsHeaders(new Set(["https://app.example"]), "https://app.example", undefined, CORS_ROUTES.get("/token")!);
 * // { vary: "Origin", "access-control-allow-origin": "https://app.example", … }
 * ```
 */
export function corsHeaders(
  allowed: ReadonlySet<string>,
  origin: string | null,
  preflightMethod: string | null | undefined,
  route: CorsRoute,
): Record<string, string> {
  const headers: Record<string, string> = { vary: "Origin" };
  if (origin === null || !allowed.has(origin)) return headers;
  if (preflightMethod === undefined) {
    headers["access-control-allow-origin"] = origin;
    headers["access-control-expose-headers"] = route.exposeHeaders;
  } else if (preflightMethod === route.method) {
    headers["access-control-allow-origin"] = origin;
    headers["access-control-allow-methods"] = route.method;
    headers["access-control-allow-headers"] = route.allowHeaders;
    headers["access-control-max-age"] = String(PREFLIGHT_MAX_AGE);
  }
  return headers;
}

/**
 * Creates the listener's CORS from `server.cors_origins`.
 *
 * @param origins the configured origins (already in the form browsers send)
 * @returns the CORS handling, or `undefined` when no origin is listed (CORS off)
 */
export function createCors(origins: readonly string[]): Cors | undefined {
  if (origins.length === 0) return undefined;
  const allowed: ReadonlySet<string> = new Set(origins);
  const set = (res: Response, fields: Readonly<Record<string, string>>) => {
    for (const name in fields) res.headers.set(name, fields[name]!);
  };
  return {
    preflight(req, route) {
      const res = new Response(null, { status: 204 });
      res.headers.set("allow", `OPTIONS, ${route.method}`);
      const method = req.headers.get("access-control-request-method");
      set(res, corsHeaders(allowed, req.headers.get("origin"), method, route));
      return res;
    },
    decorate(req, res, route) {
      set(res, corsHeaders(allowed, req.headers.get("origin"), undefined, route));
    },
  };
}
