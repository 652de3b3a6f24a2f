/**
 * The console's CSRF rule as a pure function. Every state-changing request (any method but
 * GET/HEAD) must carry the session's CSRF token, in the form field `csrf` or the
 * `X-CSRF-Token` header, and must not come from another origin. `SameSite=Strict` already
 * keeps the cookie off cross-site requests; the token also covers same-site attackers
 * (another port or subdomain) and browsers without SameSite.
 *
 * @module
 */
import { timingSafeEqual } from "node:crypto";

/** The form field carrying the CSRF token. */
export const CSRF_FIELD = "csrf";
/** The header carrying the CSRF token (for requests sent by script). */
export const CSRF_HEADER = "x-csrf-token";

/** Methods that change nothing and so need no token. */
const SAFE = new Set(["GET", "HEAD"]);

/**
 * Whether a request may proceed: safe methods always; others only when the presented token
 * equals the session's (compared in constant time) and the `Origin`, when the browser sends
 * one, is the request's own.
 *
 * @param method the request method
 * @param requestOrigin the origin the request was sent to (`new URL(req.url).origin`)
 * @param originHeader the request's `Origin` header
 * @param presented the token from the form field or header, if any
 * @param expected the session's token (`undefined` when there is no session: always refused)
 * @returns true when the request passes
 *
 * @example
 * ```ts
 * csrfAllows("POST", "http://127.0.0.1:9090", "http://127.0.0.1:9090", token, session.csrf); // true
 * csrfAllows("POST", "http://127.0.0.1:9090", null, undefined, session.csrf);               // false
 * ```
 */
export function csrfAllows(
  method: string,
  requestOrigin: string,
  originHeader: string | null,
  presented: string | undefined,
  expected: string | undefined,
): boolean {
  if (SAFE.has(method)) return true;
  if (originHeader !== null && originHeader !== requestOrigin) return false;
  if (presented === undefined || expected === undefined) return false;
  const a = new TextEncoder().encode(presented);
  const b = new TextEncoder().encode(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether a login request (which has no session yet) comes from the console's own page: the
 * browser's `Origin` must be the request's own, or `Sec-Fetch-Site` must say `same-origin`.
 * A request with neither header (not a browser) passes: without a session cookie to ride on,
 * only a browser request can be forged across sites, and browsers send one of them on POST.
 *
 * @param requestOrigin the origin the request was sent to
 * @param headers the request headers
 */
export function loginOriginAllows(requestOrigin: string, headers: Headers): boolean {
  const origin = headers.get("origin");
  if (origin !== null) return origin === requestOrigin;
  const site = headers.get("sec-fetch-site");
  return site === null || site === "same-origin" || site === "none";
}
