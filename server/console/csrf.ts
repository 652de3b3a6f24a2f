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
 * Whether a request may proceed: safe methods always; others only when it was sent from the
 * console's own origin ({@linkcode fromOwnOrigin}) and the presented token equals the
 * session's (compared in constant time).
 *
 * @param method the request method
 * @param sameOrigin what {@linkcode fromOwnOrigin} says of the request
 * @param presented the token from the form field or header, if any
 * @param expected the session's token (`undefined` when there is no session: always refused)
 * @returns true when the request passes
 *
 * @example
 * ```ts
 * const expected = "csrf-of-the-session";
 * if (!csrfAllows("POST", true, expected, expected)) throw new Error("its own token passes");
 * if (csrfAllows("POST", true, undefined, expected)) throw new Error("none is refused");
 * ```
 */
export function csrfAllows(
  method: string,
  sameOrigin: boolean,
  presented: string | undefined,
  expected: string | undefined,
): boolean {
  if (SAFE.has(method)) return true;
  if (!sameOrigin || presented === undefined || expected === undefined) return false;
  const a = new TextEncoder().encode(presented);
  const b = new TextEncoder().encode(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether a request comes from the console's own pages, as far as the browser says: its
 * `Sec-Fetch-Site` must be `same-origin` (or `none`: typed in the address bar); without it, an
 * `Origin` must be the request's own. `Origin: null` proves nothing either way (browsers send
 * it for form posts under `Referrer-Policy: no-referrer`, which the console sets). A request
 * with neither header (not a browser) passes: only a browser can be made to send a request
 * for someone else, and browsers send one of them on POST.
 *
 * @param requestOrigin the origin the request was sent to (`new URL(req.url).origin`)
 * @param headers the request headers
 */
export function fromOwnOrigin(requestOrigin: string, headers: Headers): boolean {
  const site = headers.get("sec-fetch-site");
  if (site !== null) return site === "same-origin" || site === "none";
  const origin = headers.get("origin");
  return origin === null || origin === "null" || origin === requestOrigin;
}
