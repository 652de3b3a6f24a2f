import { decodeJwt } from "jose";
import { DEFAULT_CLI } from "../../deps.ts";
import { bearerOf, type OperatorPrincipal } from "../../auth/operator_gate.ts";
import type { RequestInfo } from "../../http/router.ts";
import { OAuthError } from "../../errors.ts";
import type { ConsoleEnv, PageRequest } from "../console_context.ts";
import { MAX_SESSION_MS } from "../console_sessions.ts";
import { fromOwnOrigin } from "../csrf.ts";
import { type Html, html } from "../html.ts";
import { htmlResponse, redirect } from "../responses.ts";
import { readConsoleForm } from "../session_guard.ts";
import { clearedSessionCookie, readSessionCookie, sessionCookie } from "../session_cookie.ts";
import { layout, type Notice } from "./layout.ts";

/**
 * The login page: paste an operator token, or (behind the configured mTLS proxy) sign in with
 * the client certificate the proxy verified, by submitting the form empty.
 *
 * @param mtls whether `mtls` is among `internal_api.auth_methods`
 * @param cli how operators run the program (`deno run -A server/main.ts` from a checkout)
 * @param notice why a previous attempt was refused, if it was
 */
export function loginPage(mtls: boolean, cli: string, notice?: Notice): Html {
  return layout(
    "Sign in",
    undefined,
    html`<form method="post" action="/admin/login" class="card">
<label for="token">Operator token</label>
<p class="hint" id="token-hint">Mint one on the server with <code>${cli} operator-token --sub NAME</code>.
It is checked as the internal API checks it and is not stored; the session ends with it.</p>
<textarea id="token" name="token" rows="5" autocomplete="off" spellcheck="false"
 aria-describedby="token-hint"${mtls ? "" : " required"}></textarea>
${
      mtls &&
      html`<p class="hint">Behind the mTLS proxy, leave it empty to sign in with your client certificate.</p>`
    }
<button type="submit">Sign in</button>
</form>`,
    notice,
  );
}

/** `GET /admin/login`: the sign-in form, or the console for a live session. */
export function showLogin(req: Request, { sessions, mtls, service }: ConsoleEnv): Response {
  return sessions.get(readSessionCookie(req.headers.get("cookie")))
    ? redirect("/admin/")
    : htmlResponse(loginPage(mtls, service.cli ?? DEFAULT_CLI), 200);
}

/**
 * `POST /admin/login`: passes the pasted operator token (or the proxy's client certificate)
 * through the internal API's operator gate, then opens a session until the token's `exp` (a
 * certificate's session lasts {@linkcode MAX_SESSION_MS}). The shared secret names no one and
 * opens no session.
 */
export async function signIn(req: Request, info: RequestInfo, env: ConsoleEnv): Promise<Response> {
  const { service, sessions, ops, mtls, secure } = env;
  const refuse = (text: string, status: number, headers: Record<string, string> = {}) =>
    htmlResponse(
      loginPage(mtls, service.cli ?? DEFAULT_CLI, { kind: "error", text }),
      status,
      headers,
    );
  if (!fromOwnOrigin(new URL(req.url).origin, req.headers)) {
    return refuse("Sign in from the console's own page.", 403);
  }
  const form = await readConsoleForm(req, service.config.server.body_timeout);
  const token = (form.get("token") ?? "").trim();
  let operator: OperatorPrincipal;
  try {
    // The gate sees what the API would: the same peer and proxy headers, and the pasted
    // token as the bearer credential (one token, as an `Authorization` header would carry it).
    operator = await env.gate({ bearer: bearerOf(`Bearer ${token}`), headers: req.headers, info });
  } catch (err) {
    if (!(err instanceof OAuthError) || err.code === "server_error") throw err;
    return refuse(
      err.status === 429
        ? "Too many failed attempts from this address; wait and try again."
        : "That is not a valid operator token for this service.",
      err.status,
      err.status === 429 ? err.headers : {},
    );
  }
  // The shared secret names no one: console sessions belong to a named operator.
  if (operator.method === "shared_secret") {
    service.log.info("console login refused: shared secret", { peer: operator.peer });
    return refuse("The console accepts an operator token or a client certificate.", 401);
  }
  const now = service.clock.now();
  const until = operator.method === "operator_token"
    ? (decodeJwt(token).exp ?? 0) * 1000
    : now + MAX_SESSION_MS;
  const opened = sessions.open(operator, until);
  await ops.recordConsoleSession(operator, "console.login");
  service.log.info("console login", {
    operator: operator.subject,
    auth: operator.method,
    peer: operator.peer,
    until: new Date(opened.session.expiresAt).toISOString(),
  });
  return redirect("/admin/", {
    "set-cookie": sessionCookie(opened.token, (opened.session.expiresAt - now) / 1000, secure),
  });
}

/** `POST /admin/logout`: ends the session and clears its cookie. */
export async function signOut(
  c: PageRequest,
  { sessions, ops, service, secure }: ConsoleEnv,
): Promise<Response> {
  sessions.end(readSessionCookie(c.req.headers.get("cookie")));
  const { operator } = c.session;
  await ops.recordConsoleSession(operator, "console.logout");
  service.log.info("console logout", {
    operator: operator.subject,
    auth: operator.method,
    peer: operator.peer,
  });
  return redirect("/admin/login", { "set-cookie": clearedSessionCookie(secure) });
}
