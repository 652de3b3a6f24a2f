/**
 * The operator console: HTML pages at `/admin/` on the internal listener, served only where
 * the internal API is (see `createInternalHandler`). It is another front end on the internal
 * API's operations: every read and change calls the same admin operations
 * (`admin/operations.ts`) with the operator's principal, so validation and audit lines are the
 * API's own.
 *
 * Login passes the pasted operator token (or the request's mTLS proxy header) through the
 * internal API's operator gate (lockout, audience, required claim, signature, expiry); the
 * session it opens lives in this process (`console_sessions.ts`), its cookie is `HttpOnly`,
 * `SameSite=Strict` and `Secure` (unless the issuer is plain-http loopback), and every
 * state-changing request must carry the session's CSRF token.
 *
 * @module
 */
import { decodeJwt } from "jose";
import type { OperatorPrincipal } from "../auth/operator_gate.ts";
import { MAX_JSON_BYTES } from "../admin/internal_routes.ts";
import type { AdminOperations } from "../admin/operations.ts";
import { parseClaims, parseJsonObject, parseListQuery } from "../admin/user_input.ts";
import type { UserLookup } from "../admin/user_lookup.ts";
import type { ServiceDeps } from "../deps.ts";
import { OAuthError } from "../errors.ts";
import { readCapped } from "../http/body.ts";
import type { RequestInfo, Route, RouteParams } from "../http/router.ts";
import { CONSOLE_ASSETS } from "./assets.ts";
import { type ConsoleSession, ConsoleSessions, MAX_SESSION_MS } from "./console_sessions.ts";
import { CSRF_FIELD, CSRF_HEADER, csrfAllows, fromOwnOrigin } from "./csrf.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";
import { layout, type Notice, type Viewer } from "./pages/layout.ts";
import { loginPage } from "./pages/login_page.ts";
import { overviewPage } from "./pages/overview_page.ts";
import { keysPage } from "./pages/keys_page.ts";
import { auditPage } from "./pages/audit_page.ts";
import { deliveriesPage } from "./pages/deliveries_page.ts";
import { parseAuditQuery, parseDeliveryQuery } from "../admin/list_queries.ts";
import { usersPage } from "./pages/users_page.ts";
import { confirmDeletePage, userPage } from "./pages/user_page.ts";
import {
  clearedSessionCookie,
  cookieIsSecure,
  readSessionCookie,
  sessionCookie,
} from "./session_cookie.ts";
import { NO_STORE } from "../http/json_response.ts";

/**
 * The Content-Security-Policy of every console response: only the service's own script and
 * stylesheet, no inline script or style, no framing, forms post only to the console.
 */
export const CONSOLE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; " +
  "img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; " +
  "frame-ancestors 'none'";

/** Headers on every console response. */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-security-policy": CONSOLE_CSP,
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  ...NO_STORE,
});

/** Largest console form body (bytes): the API's JSON body limit, for the claims editor. */
const MAX_FORM_BYTES = MAX_JSON_BYTES;

/** Gate of the internal API (`createOperatorGate`). */
export type OperatorGate = (req: Request, info: RequestInfo) => Promise<OperatorPrincipal>;

/** What the console depends on. */
export interface ConsoleDeps {
  readonly service: ServiceDeps;
  /** The internal API's operator gate: the one verifier of operator credentials. */
  readonly gate: OperatorGate;
  /** The admin operations, the internal API's own. */
  readonly operations: AdminOperations;
  /** The session table (default: a new one). */
  readonly sessions?: ConsoleSessions;
}

interface Ctx {
  readonly req: Request;
  readonly params: RouteParams;
  readonly session: ConsoleSession;
  readonly viewer: Viewer;
  readonly form: URLSearchParams;
}

/** Fixed messages a redirect may ask a page to show (never text from the request). */
const DONE: Readonly<Record<string, string>> = {
  claims: "Claims saved.",
  suspended: "User suspended: refreshes are refused until reactivated.",
  active: "User reactivated.",
  deleted: "User deleted: every session ended.",
  revoked: "Session revoked.",
  redelivered: "Delivery queued again; the sender sends it within a few seconds.",
};

/**
 * The console's routes, for the internal listener's router. Every path is under `/admin`.
 *
 * @param deps the service, the operator gate and the admin operations
 * @returns the route table
 */
export function consoleRoutes(deps: ConsoleDeps): Route[] {
  const { service, operations: ops } = deps;
  const sessions = deps.sessions ?? new ConsoleSessions(service.clock, service.random);
  const secure = cookieIsSecure(service.config.server.issuer);
  const mtls = service.config.internal_api.auth_methods.includes("mtls");

  const authed =
    (page: (c: Ctx) => Promise<Response>) =>
    async (req: Request, _info: RequestInfo, params: RouteParams): Promise<Response> => {
      const token = readSessionCookie(req.headers.get("cookie"));
      const session = sessions.get(token);
      if (session === undefined) {
        if (req.method === "GET" || req.method === "HEAD") return redirect("/admin/login");
        return htmlResponse(
          errorPage(undefined, "Your console session has ended; sign in again."),
          401,
        );
      }
      const viewer = { subject: session.operator.subject, csrf: session.csrf };
      let form = new URLSearchParams();
      if (req.method !== "GET" && req.method !== "HEAD") {
        form = new URLSearchParams(
          await readCapped(req, MAX_FORM_BYTES, service.config.server.body_timeout),
        );
      }
      const presented = form.get(CSRF_FIELD) ?? req.headers.get(CSRF_HEADER) ?? undefined;
      if (
        !csrfAllows(
          req.method,
          fromOwnOrigin(new URL(req.url).origin, req.headers),
          presented,
          session.csrf,
        )
      ) {
        service.log.warn("console request refused: CSRF token missing or wrong", {
          operator: session.operator.subject,
          peer: session.operator.peer,
        });
        return htmlResponse(
          errorPage(
            viewer,
            "This request did not carry the console's CSRF token; reload the page and try again.",
          ),
          403,
        );
      }
      try {
        return await page({ req, params, session, viewer, form });
      } catch (err) {
        if (!(err instanceof OAuthError) || err.code === "server_error") throw err;
        return htmlResponse(errorPage(viewer, err.description), err.status);
      }
    };

  const userDetail = async (c: Ctx, notice?: Notice, claimsText?: string, status = 200) => {
    const id = c.params.id!;
    const user = await ops.getUser(id);
    const live = await ops.listSessions(id);
    const accessClaims = await ops.previewAccessClaims(id);
    return htmlResponse(
      userPage(c.viewer, {
        user,
        sessions: live,
        accessClaims,
        ...(claimsText === undefined ? {} : { claimsText }),
      }, notice),
      status,
    );
  };
  const doneNotice = (c: Ctx): Notice | undefined => {
    const key = new URL(c.req.url).searchParams.get("done") ?? "";
    return Object.hasOwn(DONE, key) ? { kind: "ok", text: DONE[key]! } : undefined;
  };

  const routes: Array<[string, string, Route["handler"]]> = [
    ["GET", "/admin", () => redirect("/admin/")],
    ["GET", "/admin/assets/{name}", (_req, _info, params) => asset(params.name!)],
    [
      "GET",
      "/admin/login",
      (req) =>
        sessions.get(readSessionCookie(req.headers.get("cookie")))
          ? redirect("/admin/")
          : htmlResponse(loginPage(mtls), 200),
    ],
    ["POST", "/admin/login", async (req, info) => {
      const refuse = (text: string, status: number, headers: Record<string, string> = {}) =>
        htmlResponse(loginPage(mtls, { kind: "error", text }), status, headers);
      if (!fromOwnOrigin(new URL(req.url).origin, req.headers)) {
        return refuse("Sign in from the console's own page.", 403);
      }
      const form = new URLSearchParams(
        await readCapped(req, MAX_FORM_BYTES, service.config.server.body_timeout),
      );
      const token = (form.get("token") ?? "").trim();
      // The gate sees this request as the API would: the same peer and proxy headers, the
      // pasted token as the bearer credential, and nothing else the browser sent.
      const headers = new Headers(req.headers);
      headers.delete("authorization");
      headers.delete("cookie");
      if (token !== "") headers.set("authorization", `Bearer ${token}`);
      let operator: OperatorPrincipal;
      try {
        operator = await deps.gate(new Request(req.url, { method: "POST", headers }), info);
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
    }],
    [
      "POST",
      "/admin/logout",
      authed(async (c) => {
        sessions.end(readSessionCookie(c.req.headers.get("cookie")));
        const { operator } = c.session;
        await ops.recordConsoleSession(operator, "console.logout");
        service.log.info("console logout", {
          operator: operator.subject,
          auth: operator.method,
          peer: operator.peer,
        });
        return redirect("/admin/login", { "set-cookie": clearedSessionCookie(secure) });
      }),
    ],
    [
      "GET",
      "/admin/",
      authed(async (c) => {
        const stats = await ops.stats();
        const counts = service.metrics.tokenCounts();
        return htmlResponse(
          overviewPage(c.viewer, {
            users: stats.users,
            liveSessions: stats.sessions.live,
            issued: counts.issued,
            refreshReuse: counts.refreshReuse,
            revocationsPending: stats.provider_revocations.pending,
          }),
          200,
        );
      }),
    ],
    [
      "GET",
      "/admin/users",
      authed(async (c) => {
        const q = new URL(c.req.url).searchParams;
        const lookup = lookupOf(q);
        if (lookup === undefined) {
          const cursor = q.get("cursor");
          const { after, limit } = parseListQuery(new URLSearchParams(cursor ? { cursor } : {}));
          const page = await ops.listUsers(after, limit);
          return htmlResponse(
            usersPage(c.viewer, {
              users: page.users,
              nextCursor: page.next_cursor,
              complete: true,
            }),
            200,
          );
        }
        const found = await ops.findUsers(lookup.q);
        return htmlResponse(
          usersPage(c.viewer, {
            users: found.users,
            nextCursor: null,
            query: lookup.fields,
            complete: found.complete,
          }),
          200,
        );
      }),
    ],
    ["GET", "/admin/users/{id}", authed((c) => userDetail(c, doneNotice(c)))],
    [
      "POST",
      "/admin/users/{id}/claims",
      authed(async (c) => {
        const text = c.form.get("claims") ?? "";
        try {
          JSON.parse(text);
        } catch {
          return userDetail(
            c,
            { kind: "error", text: "The claims are not valid JSON." },
            text,
            400,
          );
        }
        try {
          const claims = parseClaims(parseJsonObject(text), "body");
          await ops.replaceClaims(c.session.operator, c.params.id!, claims);
        } catch (err) {
          if (!(err instanceof OAuthError) || err.status !== 400) throw err;
          return userDetail(c, { kind: "error", text: err.description }, text, 400);
        }
        return redirect(`/admin/users/${c.params.id}?done=claims`);
      }),
    ],
    [
      "POST",
      "/admin/users/{id}/status",
      authed(async (c) => {
        const status = c.form.get("status");
        if (status !== "active" && status !== "suspended") {
          throw new OAuthError("invalid_request", 400, "The status must be active or suspended");
        }
        await ops.patchUser(c.session.operator, c.params.id!, { status });
        return redirect(`/admin/users/${c.params.id}?done=${status}`);
      }),
    ],
    [
      "GET",
      "/admin/users/{id}/delete",
      authed(async (c) => {
        const user = await ops.getUser(c.params.id!);
        return htmlResponse(confirmDeletePage(c.viewer, user), 200);
      }),
    ],
    [
      "POST",
      "/admin/users/{id}/delete",
      authed(async (c) => {
        await ops.deleteUser(c.session.operator, c.params.id!);
        return redirect(`/admin/users/${c.params.id}?done=deleted`);
      }),
    ],
    [
      "POST",
      "/admin/users/{id}/sessions/{sid}/revoke",
      authed(async (c) => {
        await ops.revokeSession(c.session.operator, c.params.id!, c.params.sid!);
        return redirect(`/admin/users/${c.params.id}?done=revoked`);
      }),
    ],
    [
      "GET",
      "/admin/audit",
      authed(async (c) => {
        const q = new URL(c.req.url).searchParams;
        const { query, limit } = parseAuditQuery(q);
        const page = await ops.listAudit(query, limit);
        const filters = pick(q, ["actor", "action", "user", "from", "to"]);
        return htmlResponse(auditPage(c.viewer, page.records, filters, page.next_cursor), 200);
      }),
    ],
    [
      "GET",
      "/admin/webhooks",
      authed(async (c) => {
        const q = new URL(c.req.url).searchParams;
        const { query, limit } = parseDeliveryQuery(q);
        const page = await ops.listDeliveries(query, limit);
        return htmlResponse(
          deliveriesPage(
            c.viewer,
            await ops.webhookEndpoints(),
            page.deliveries,
            pick(q, ["endpoint", "type", "state"]),
            page.next_cursor,
            doneNotice(c),
          ),
          200,
        );
      }),
    ],
    [
      "POST",
      "/admin/webhooks/deliveries/{id}/redeliver",
      authed(async (c) => {
        await ops.redeliver(c.session.operator, c.params.id!);
        return redirect("/admin/webhooks?done=redelivered");
      }),
    ],
    [
      "GET",
      "/admin/keys",
      authed(async (c) => {
        const { keys, activeKid } = await ops.signingKeys();
        return htmlResponse(keysPage(c.viewer, keys, activeKid, service.clock.now()), 200);
      }),
    ],
  ];
  return routes.map(([method, path, handler]) => ({ method, path, handler }));
}

/** The query's values of `names` that are given and not empty. */
function pick<K extends string>(
  q: URLSearchParams,
  names: readonly K[],
): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const n of names) {
    const v = q.get(n);
    if (v) out[n] = v;
  }
  return out;
}

/** The look-up the users page's query asks for, if any (the first field filled decides). */
function lookupOf(
  q: URLSearchParams,
): { q: UserLookup; fields: Record<string, string> } | undefined {
  const get = (k: string) => (q.get(k) ?? "").trim();
  const [email, provider, externalId, id] = [
    get("email"),
    get("provider"),
    get("external_id"),
    get("id"),
  ];
  const fields = { email, provider, external_id: externalId, id };
  if (id !== "") return { q: { by: "id", id }, fields };
  if (provider !== "" || externalId !== "") {
    return { q: { by: "external", provider, externalId }, fields };
  }
  if (email !== "") return { q: { by: "email", email }, fields };
  return undefined;
}

function errorPage(viewer: Viewer | undefined, text: string): Html {
  return layout(
    "Not done",
    viewer,
    html`<p><a href="${viewer ? "/admin/" : "/admin/login"}">Back to the console</a></p>`,
    { kind: "error", text },
  );
}

function asset(name: string): Response {
  const a = CONSOLE_ASSETS.get(name);
  if (a === undefined) return htmlResponse(errorPage(undefined, "No such file."), 404);
  const res = new Response(a.body, { headers: { "content-type": a.contentType } });
  setHeaders(res.headers, CONSOLE_HEADERS);
  return res;
}

function htmlResponse(
  page: Html,
  status: number,
  extra: Readonly<Record<string, string>> = {},
): Response {
  const res = new Response(page.text, {
    status,
    headers: { "content-type": "text/html; charset=utf-8" },
  });
  setHeaders(res.headers, CONSOLE_HEADERS);
  setHeaders(res.headers, extra);
  return res;
}

function redirect(location: string, extra: Readonly<Record<string, string>> = {}): Response {
  const res = new Response(null, { status: 303, headers: { location } });
  setHeaders(res.headers, CONSOLE_HEADERS);
  setHeaders(res.headers, extra);
  return res;
}

function setHeaders(target: Headers, fields: Readonly<Record<string, string>>): void {
  for (const [k, v] of Object.entries(fields)) target.set(k, v);
}
