/**
 * The console's session cookie as pure functions: what `Set-Cookie` says, and reading the
 * session token back from `Cookie`.
 *
 * @module
 */
import { isAllowedIssuerUrl } from "../config/resolve.ts";

/** The cookie's name. */
export const SESSION_COOKIE = "te_console";

/** The cookie's path: it is sent to the console's pages and nowhere else on the listener. */
export const COOKIE_PATH = "/admin/";

/**
 * Whether the cookie is marked `Secure`: always, except when the issuer is a plain-http
 * loopback URL (development, tests), where no HTTPS exists to carry it.
 *
 * @param issuer `server.issuer`
 */
export function cookieIsSecure(issuer: string): boolean {
  const url = new URL(issuer);
  return !(url.protocol === "http:" && isAllowedIssuerUrl(url));
}

/**
 * The `Set-Cookie` value that opens a session: `HttpOnly` (no script reads it),
 * `SameSite=Strict` (no other site's page sends it), `Path=/admin/`, `Max-Age` the session's
 * remaining life, `Secure` per {@linkcode cookieIsSecure}.
 *
 * @param token the session token (base64url)
 * @param maxAgeSeconds seconds until the session ends (at least 1)
 * @param secure whether to mark it `Secure`
 * @returns the header value
 *
 * @example
 * ```ts
 * sessionCookie("abc", 900, true);
 * // "te_console=abc; Path=/admin/; Max-Age=900; HttpOnly; SameSite=Strict; Secure"
 * ```
 */
export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  const age = Math.max(1, Math.floor(maxAgeSeconds));
  return `${SESSION_COOKIE}=${token}; Path=${COOKIE_PATH}; Max-Age=${age}; HttpOnly; ` +
    `SameSite=Strict${secure ? "; Secure" : ""}`;
}

/**
 * The `Set-Cookie` value that makes the browser forget the session cookie (logout).
 *
 * @param secure whether the cookie was marked `Secure`
 */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=${COOKIE_PATH}; Max-Age=0; HttpOnly; SameSite=Strict${
    secure ? "; Secure" : ""
  }`;
}

/**
 * The session token in a `Cookie` header, or `undefined`. Only a value of the token's own
 * shape (43 base64url characters) is taken; with several cookies of the name, none is (a
 * cookie set for a sibling path must not shadow ours silently).
 *
 * @param header the request's `Cookie` header
 */
export function readSessionCookie(header: string | null): string | undefined {
  if (header === null) return undefined;
  const values = header.split(";")
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${SESSION_COOKIE}=`))
    .map((part) => part.slice(SESSION_COOKIE.length + 1));
  if (values.length !== 1) return undefined;
  return /^[A-Za-z0-9_-]{43}$/.test(values[0]!) ? values[0] : undefined;
}
