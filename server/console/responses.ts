/**
 * How the console answers: HTML pages, redirects and its error page. The console's security
 * headers ({@linkcode CONSOLE_HEADERS}) are set on every answer by its route group.
 *
 * @module
 */
import { NO_STORE } from "../http/json_response.ts";
import { type Html, html } from "./html.ts";
import { layout, type Viewer } from "./pages/layout.ts";

/**
 * The Content-Security-Policy of every console response: only the service's own script and
 * stylesheet, no inline script or style, no framing, forms post only to the console.
 */
export const CONSOLE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; " +
  "img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; " +
  "frame-ancestors 'none'";

/**
 * Headers on every console response. `Referrer-Policy: same-origin` sends the page's address
 * only to the console itself and nothing to other sites; under `no-referrer` browsers post the
 * console's forms with `Origin: null`, which the CSRF rule refuses (`csrf.ts`).
 */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-security-policy": CONSOLE_CSP,
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  ...NO_STORE,
});

/**
 * A page as an HTML answer.
 *
 * @param page the page
 * @param status its status
 * @param extra further headers
 * @returns the answer
 */
export function htmlResponse(
  page: Html,
  status: number,
  extra: Readonly<Record<string, string>> = {},
): Response {
  return new Response(page.text, {
    status,
    headers: { "content-type": "text/html; charset=utf-8", ...extra },
  });
}

/**
 * A `303 See Other` to `location` (after a form post, or to the sign-in page).
 *
 * @param location where to
 * @param extra further headers (a session cookie)
 * @returns the answer
 */
export function redirect(location: string, extra: Readonly<Record<string, string>> = {}): Response {
  return new Response(null, { status: 303, headers: { location, ...extra } });
}

/**
 * The page that says a request was not done, and why.
 *
 * @param viewer the signed-in operator, or `undefined` (the link then leads to sign-in)
 * @param text why, for the operator
 * @returns the page
 */
export function errorPage(viewer: Viewer | undefined, text: string): Html {
  return layout(
    "Not done",
    viewer,
    html`<p><a href="${viewer ? "/admin/" : "/admin/login"}">Back to the console</a></p>`,
    { kind: "error", text },
  );
}
