/**
 * The guard of the console's pages and the group's one error mapping. The guard finds the
 * session of the request's cookie, reads the posted form and checks its CSRF token, once for
 * every page; what it refuses and what a page throws are answered as console pages by
 * {@linkcode recoverConsole}.
 *
 * @module
 */
import type { ServiceDeps } from "../deps.ts";
import { OAuthError } from "../errors.ts";
import { readCapped } from "../http/body.ts";
import type { Guard } from "../http/router.ts";
import { MAX_JSON_BYTES } from "../admin/internal_routes.ts";
import type { ConsoleContext } from "./console_context.ts";
import type { ConsoleSessions } from "./console_sessions.ts";
import { CSRF_FIELD, CSRF_HEADER, csrfAllows, fromOwnOrigin } from "./csrf.ts";
import { errorPage, htmlResponse, redirect } from "./responses.ts";
import { readSessionCookie } from "./session_cookie.ts";

/** Largest console form body (bytes): the API's JSON body limit, for the claims editor. */
export const MAX_FORM_BYTES = MAX_JSON_BYTES;

/** A request the guard refused, with the console's answer to it. */
export class ConsoleRefusal extends Error {
  override name = "ConsoleRefusal";
  /** @param response the answer: a redirect to sign-in, or an error page */
  constructor(readonly response: Response) {
    super(`console request refused (${response.status})`);
  }
}

/**
 * Reads a posted form, bounded like every console form.
 *
 * @param req the request
 * @param bodyTimeout `server.body_timeout` (seconds)
 * @returns its fields
 */
export async function readConsoleForm(req: Request, bodyTimeout: number): Promise<URLSearchParams> {
  return new URLSearchParams(await readCapped(req, MAX_FORM_BYTES, bodyTimeout));
}

/**
 * The session guard: the operator's session, what the page shows of them, and the posted form
 * with its CSRF token checked. Without a live session, a `GET` or `HEAD` goes to sign-in and
 * any other method is refused with 401; a state-changing request without the session's CSRF
 * token (or from another origin) is refused with 403.
 *
 * @param sessions the console's session table
 * @param service config and logger
 * @returns the guard, for `guardRoutes`
 */
export function createSessionGuard(
  sessions: ConsoleSessions,
  service: Pick<ServiceDeps, "config" | "log">,
): Guard<ConsoleContext> {
  return async (req) => {
    const safe = req.method === "GET" || req.method === "HEAD";
    const session = sessions.get(readSessionCookie(req.headers.get("cookie")));
    if (session === undefined) {
      throw new ConsoleRefusal(
        safe ? redirect("/admin/login") : htmlResponse(
          errorPage(undefined, "Your console session has ended; sign in again."),
          401,
        ),
      );
    }
    const viewer = { subject: session.operator.subject, csrf: session.csrf };
    const form = safe
      ? new URLSearchParams()
      : await readConsoleForm(req, service.config.server.body_timeout);
    const presented = form.get(CSRF_FIELD) ?? req.headers.get(CSRF_HEADER) ?? undefined;
    const ownOrigin = fromOwnOrigin(new URL(req.url).origin, req.headers);
    if (!csrfAllows(req.method, ownOrigin, presented, session.csrf)) {
      service.log.warn("console request refused: CSRF token missing or wrong", {
        operator: session.operator.subject,
        peer: session.operator.peer,
      });
      throw new ConsoleRefusal(htmlResponse(
        errorPage(
          viewer,
          "This request did not carry the console's CSRF token; reload the page and try again.",
        ),
        403,
      ));
    }
    return { session, viewer, form };
  };
}

/**
 * The console group's error mapping: a guard's refusal is its own answer; a refusal the
 * operations decided for a page (bad input, not found) is the error page with its status;
 * anything else (a form too large or too slow before any page ran, a failure) goes on to the
 * listener's mapping, as the API's errors do.
 *
 * @param err what the guard or the page threw
 * @param context the guard's context, when it admitted the request
 * @returns the answer
 */
export function recoverConsole(err: unknown, context: ConsoleContext | undefined): Response {
  if (err instanceof ConsoleRefusal) return err.response;
  if (context === undefined || !(err instanceof OAuthError) || err.code === "server_error") {
    throw err;
  }
  return htmlResponse(errorPage(context.viewer, err.description), err.status);
}
