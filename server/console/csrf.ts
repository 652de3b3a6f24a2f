/**
 * The console's CSRF rule as a pure function. Every state-changing request (any method but
 * GET/HEAD) must carry the session's CSRF token, in the form field `csrf` or the
 * `X-CSRF-Token` header, and must come from the console's own pages ({@linkcode fromOwnOrigin}:
 * the browser must say so; `Origin: null` never passes). `SameSite=Strict` already
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
 * Where a browser says a request comes from, by one rule for both listeners (the console and
 * the internal API's cross-site guard):
 *
 * - `foreign`: sent on behalf of another site: `Origin: null` (an opaque origin proves nothing,
 *   so it never passes), `Sec-Fetch-Site` `cross-site` or `same-site`, or, from a browser that
 *   sends no `Sec-Fetch-Site`, an `Origin` other than the listener's own;
 * - `same-origin`: the listener's own pages: `Sec-Fetch-Site: same-origin` (the browser's own
 *   judgement, which a proxy in front cannot skew; the `Origin` it sends beside it then names the
 *   proxy's scheme and host, not the listener's, so it is not compared), or an `Origin` equal
 *   to the listener's from a browser without `Sec-Fetch-Site`;
 * - `user`: typed into the address bar or opened from a bookmark (`Sec-Fetch-Site: none`);
 * - `not-browser`: neither header (curl, scripts): no browser can be made to send such a
 *   request for someone else.
 */
export type RequestSource = "foreign" | "same-origin" | "user" | "not-browser";

/**
 * Classifies a request by {@linkcode RequestSource}'s rule (pure).
 *
 * @param requestOrigin the origin the request was sent to (`new URL(req.url).origin`)
 * @param headers the request headers
 * @returns where the request comes from
 *
 * @example
 * ```ts
 * const own = "http://127.0.0.1:9090";
 * requestSource(own, new Headers({ origin: "null" })); // "foreign"
 * requestSource(own, new Headers({ "sec-fetch-site": "same-origin" })); // "same-origin"
 * requestSource(own, new Headers()); // "not-browser"
 * ```
 */
export function requestSource(requestOrigin: string, headers: Headers): RequestSource {
  const origin = headers.get("origin");
  if (origin === "null") return "foreign";
  const site = headers.get("sec-fetch-site");
  if (site !== null) {
    if (site === "same-origin") return "same-origin";
    return site === "none" ? "user" : "foreign";
  }
  if (origin === null) return "not-browser";
  return origin === requestOrigin ? "same-origin" : "foreign";
}

/**
 * Whether a state-changing console request (sign-in included) comes from the console's own
 * pages: only `same-origin` passes. The console authenticates by cookie, so it asks for the
 * browser's word: a request with neither header, or from the address bar, does not pass.
 *
 * @param requestOrigin the origin the request was sent to (`new URL(req.url).origin`)
 * @param headers the request headers
 */
export function fromOwnOrigin(requestOrigin: string, headers: Headers): boolean {
  return requestSource(requestOrigin, headers) === "same-origin";
}
