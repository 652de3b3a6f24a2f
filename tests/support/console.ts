/**
 * Signing in to the operator console in tests: an operator token the service accepts, the
 * sign-in form's post, and the session cookie and CSRF token a signed-in test then sends.
 *
 * @module
 */
import { epochSeconds, seededRandom, systemClock } from "@org/shared";
import type { Page, Response as BrowserResponse } from "playwright-core";
import { mintOperatorToken } from "../../server/auth/operator_token.ts";
import type { TokenServer } from "./token_server.ts";

/** The console's sign-in form's content type. */
export const FORM = { "content-type": "application/x-www-form-urlencoded" };

/**
 * An operator token for `sub` that `te`'s gate accepts (default rules, ten minutes), signed
 * by the service's own key unless `sign` is given (a foreign key).
 */
export function operatorToken(
  te: TokenServer,
  sub = "alice",
  sign = (c: object, typ: string) => te.server.deps.keys.sign(c, typ),
): string {
  return mintOperatorToken(
    sign,
    { issuer: te.issuer, audience: "token-exchange-internal", requiredClaim: "operator" },
    sub,
    600,
    epochSeconds(systemClock),
    seededRandom(crypto.randomUUID()),
  );
}

/**
 * The headers of a form the console's own page posts for the session of `cookie`: the form's
 * content type, the cookie, and the console's `Origin` (what a browser sends under the
 * console's `Referrer-Policy: same-origin`).
 */
export function consoleForm(te: TokenServer, cookie: string): Record<string, string> {
  return { ...FORM, cookie, origin: te.internalUrl! };
}

/**
 * Posts the sign-in form with `token` (and `headers`, e.g. a proxy's) as the console's page
 * does: with the console's own `Origin`; the answer unread.
 */
export function consoleLogin(
  te: TokenServer,
  token: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${te.internalUrl}/admin/login`, {
    method: "POST",
    headers: { ...FORM, origin: te.internalUrl!, ...headers },
    body: new URLSearchParams({ token }),
    redirect: "manual",
  });
}

/**
 * Signs in as `sub` with a minted token and returns the session's `cookie` header value;
 * throws unless the console answered 303 with a cookie.
 */
export async function consoleSession(te: TokenServer, sub = "alice"): Promise<string> {
  const res = await consoleLogin(te, operatorToken(te, sub));
  await res.body?.cancel();
  const set = res.headers.get("set-cookie");
  if (res.status !== 303 || set === null) {
    throw new Error(`console sign-in answered ${res.status} without a session cookie`);
  }
  return set.split(";")[0]!;
}

/** The CSRF token the console page at `path` carries for the session of `cookie`. */
export async function consoleCsrf(te: TokenServer, cookie: string, path: string): Promise<string> {
  const page = await (await fetch(`${te.internalUrl}${path}`, { headers: { cookie } })).text();
  const m = /name="csrf" value="([^"]+)"/.exec(page);
  if (m === null) throw new Error(`no CSRF token on ${path}`);
  return m[1]!;
}

/**
 * In a browser: fills the sign-in form at `base` with `token`, submits it and waits for the
 * page after it.
 *
 * @returns the sign-in post's answer
 */
export async function browserSignIn(
  page: Page,
  base: string,
  token: string,
): Promise<BrowserResponse> {
  await page.goto(`${base}/admin/login`);
  await page.getByLabel("Operator token").fill(token);
  const [res] = await Promise.all([
    page.waitForResponse((r) =>
      r.url() === `${base}/admin/login` && r.request().method() === "POST"
    ),
    page.getByRole("button", { name: "Sign in" }).click(),
  ]);
  await page.waitForLoadState();
  return res;
}
