/**
 * What the console's pages get: the signed-in operator's context (established once, by the
 * session guard) and the console's dependencies.
 *
 * @module
 */
import type { OperatorGate } from "../auth/operator_gate.ts";
import type { AdminOperations } from "../admin/operations.ts";
import type { ServiceDeps } from "../deps.ts";
import type { RouteParams } from "../http/router.ts";
import type { ConsoleSession, ConsoleSessions } from "./console_sessions.ts";
import type { Notice, Viewer } from "./pages/layout.ts";

/** What the session guard established for a page's request. */
export interface ConsoleContext {
  readonly session: ConsoleSession;
  readonly viewer: Viewer;
  /** The posted form (empty for `GET` and `HEAD`), its CSRF token already checked. */
  readonly form: URLSearchParams;
}

/** One request to a console page: the guard's context, the request and its path values. */
export interface PageRequest extends ConsoleContext {
  readonly req: Request;
  readonly params: RouteParams;
}

/** The console's dependencies, resolved once for every page. */
export interface ConsoleEnv {
  readonly service: ServiceDeps;
  /** The internal API's operator gate: the one verifier of operator credentials. */
  readonly gate: OperatorGate;
  /** The admin operations, the internal API's own. */
  readonly ops: AdminOperations;
  readonly sessions: ConsoleSessions;
  /** Whether the session cookie is `Secure` (`cookieIsSecure`). */
  readonly secure: boolean;
  /** Whether a client certificate signs in (`internal_api.auth_methods` has `mtls`). */
  readonly mtls: boolean;
}

/** A page's handler: one per page, beside its view in `pages/`. */
export type ConsolePage = (c: PageRequest, env: ConsoleEnv) => Promise<Response>;

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
 * The notice a redirect after a change asked for (`?done=claims`), if it names a known one.
 *
 * @param req the page's request
 * @returns the notice
 */
export function doneNotice(req: Request): Notice | undefined {
  const key = new URL(req.url).searchParams.get("done") ?? "";
  return Object.hasOwn(DONE, key) ? { kind: "ok", text: DONE[key]! } : undefined;
}

/**
 * The query's values of `names` that are given and not empty (a listing's filters).
 *
 * @param q the query
 * @param names the filters' names
 * @returns the filters given
 */
export function filtersOf<K extends string>(
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
