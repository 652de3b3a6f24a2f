/**
 * The operator console: HTML pages at `/admin/` on the internal listener, served only where
 * the internal API is (see `createInternalHandler`). It is another front end on the internal
 * API's operations: every read and change calls the same admin operations
 * (`admin/operations.ts`) with the operator's principal, so validation and audit lines are the
 * API's own.
 *
 * `/admin` is one route group: the sign-in form, its post and the static assets are open; every
 * other page runs after the session guard (`session_guard.ts`: the session cookie, the posted
 * form and its CSRF token, checked once) and has one handler beside its view in `pages/`; what
 * the guard refuses and what a page throws are answered once for the group. Sign-in passes the
 * pasted operator token (or the request's mTLS proxy header) through the internal API's
 * operator gate (lockout, audience, required claim, signature, expiry); the session it opens
 * lives in this process (`console_sessions.ts`), its cookie is `HttpOnly`, `SameSite=Strict`
 * and `Secure` (unless the issuer is plain-http loopback).
 *
 * @module
 */
import type { OperatorGate } from "../auth/operator_gate.ts";
import type { AdminOperations } from "../admin/operations.ts";
import type { ServiceDeps } from "../deps.ts";
import { guardRoutes, type Route, type RouteGroup } from "../http/router.ts";
import { CONSOLE_ASSETS } from "./assets.ts";
import type { ConsoleContext, ConsoleEnv, ConsolePage } from "./console_context.ts";
import { ConsoleSessions } from "./console_sessions.ts";
import { showAudit } from "./pages/audit_page.ts";
import { redeliver, showDeliveries } from "./pages/deliveries_page.ts";
import { showKeys } from "./pages/keys_page.ts";
import { showLogin, signIn, signOut } from "./pages/login_page.ts";
import { showOverview } from "./pages/overview_page.ts";
import {
  confirmDelete,
  deleteUser,
  revokeSession,
  saveClaims,
  setStatus,
  showUser,
} from "./pages/user_page.ts";
import { showUsers } from "./pages/users_page.ts";
import { CONSOLE_HEADERS, errorPage, htmlResponse, redirect } from "./responses.ts";
import { createSessionGuard, recoverConsole } from "./session_guard.ts";
import { cookieIsSecure } from "./session_cookie.ts";

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

/** The console's pages: method, path and handler, each run after the session guard. */
const PAGES: readonly (readonly [method: string, path: string, page: ConsolePage])[] = [
  ["POST", "/admin/logout", signOut],
  ["GET", "/admin/", showOverview],
  ["GET", "/admin/users", showUsers],
  ["GET", "/admin/users/{id}", showUser],
  ["POST", "/admin/users/{id}/claims", saveClaims],
  ["POST", "/admin/users/{id}/status", setStatus],
  ["GET", "/admin/users/{id}/delete", confirmDelete],
  ["POST", "/admin/users/{id}/delete", deleteUser],
  ["POST", "/admin/users/{id}/sessions/{sid}/revoke", revokeSession],
  ["GET", "/admin/audit", showAudit],
  ["GET", "/admin/webhooks", showDeliveries],
  ["POST", "/admin/webhooks/deliveries/{id}/redeliver", redeliver],
  ["GET", "/admin/keys", showKeys],
];

/**
 * The console as the internal listener's `/admin` route group: every answer under `/admin`
 * is the console's, its 404 and 405 included, and carries {@linkcode CONSOLE_HEADERS}.
 *
 * @param deps the service, the operator gate and the admin operations
 * @returns the group, for `createRouter`
 */
export function consoleGroup(deps: ConsoleDeps): RouteGroup {
  const { service } = deps;
  const env: ConsoleEnv = {
    service,
    gate: deps.gate,
    ops: deps.operations,
    sessions: deps.sessions ?? new ConsoleSessions(service.clock, service.random),
    secure: cookieIsSecure(service.config.server.issuer),
    mtls: service.config.internal_api.auth_methods.includes("mtls"),
  };
  const open: Route[] = [
    { method: "GET", path: "/admin", handler: () => redirect("/admin/") },
    { method: "GET", path: "/admin/assets/{name}", handler: (_req, _i, p) => asset(p.name!) },
    { method: "GET", path: "/admin/login", handler: (req) => showLogin(req, env) },
    { method: "POST", path: "/admin/login", handler: (req, info) => signIn(req, info, env) },
  ];
  const pages = guardRoutes<ConsoleContext>(
    createSessionGuard(env.sessions, service),
    PAGES.map(([method, path, page]) => ({
      method,
      path,
      handler: (req, _info, params, c) => page({ ...c, req, params }, env),
    })),
    recoverConsole,
  );
  return { prefix: "/admin", routes: [...open, ...pages], headers: CONSOLE_HEADERS };
}

function asset(name: string): Response {
  const a = CONSOLE_ASSETS.get(name);
  if (a === undefined) return htmlResponse(errorPage(undefined, "No such file."), 404);
  return new Response(a.body, { headers: { "content-type": a.contentType } });
}
