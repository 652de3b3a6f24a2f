import assert from "node:assert/strict";
import { createMemoryLogger, FixedClock, seededRandom } from "@org/shared";
import type { OperatorPrincipal } from "../auth/operator_gate.ts";
import { OAuthError } from "../errors.ts";
import type { ConsoleContext } from "./console_context.ts";
import { ConsoleSessions } from "./console_sessions.ts";
import { CSRF_FIELD } from "./csrf.ts";
import { ConsoleRefusal, createSessionGuard, recoverConsole } from "./session_guard.ts";

const alice: OperatorPrincipal = { method: "operator_token", subject: "alice", peer: "127.0.0.1" };
const info = { remoteAddr: { hostname: "127.0.0.1", port: 1 } };
const config = { server: { body_timeout: 5 } } as Parameters<
  typeof createSessionGuard
>[1]["config"];

function setUp() {
  const sessions = new ConsoleSessions(new FixedClock(0), seededRandom("guard"));
  const { token, session } = sessions.open(alice, 60_000);
  const { log, lines } = createMemoryLogger();
  const guard = createSessionGuard(sessions, { config, log });
  const req = (method: string, headers: Record<string, string> = {}, body?: string) =>
    new Request("http://127.0.0.1/admin/users", {
      method,
      // As the console's own page sends it (its Origin, under Referrer-Policy: same-origin).
      headers: { cookie: `te_console=${token}`, origin: "http://127.0.0.1", ...headers },
      ...(body === undefined ? {} : { body }),
    });
  return { guard, session, req, lines };
}

/** The answer of a refused request: what the guard threw, as the group answers it. */
async function refusal(p: Promise<unknown>): Promise<Response> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof ConsoleRefusal, `refused, not ${String(err)}`);
  return recoverConsole(err, undefined);
}

Deno.test("session guard: no session sends a GET to sign-in and refuses a POST with 401", async () => {
  const { guard } = setUp();
  const get = await refusal(guard(new Request("http://127.0.0.1/admin/"), info));
  assert.equal(get.status, 303);
  assert.equal(get.headers.get("location"), "/admin/login");
  const post = await refusal(
    guard(new Request("http://127.0.0.1/admin/logout", { method: "POST" }), info),
  );
  assert.equal(post.status, 401);
  assert.match(await post.text(), /Your console session has ended/);
});

Deno.test("session guard: a POST needs the session's CSRF token; it yields session, viewer and form", async () => {
  const { guard, session, req, lines } = setUp();
  const refused = await refusal(guard(req("POST", {}, `${CSRF_FIELD}=wrong&x=1`), info));
  assert.equal(refused.status, 403);
  assert.match(await refused.text(), /CSRF token/);
  assert.equal(
    lines.filter((l) => l.msg === "console request refused: CSRF token missing or wrong").length,
    1,
  );
  const c = await guard(req("POST", {}, `${CSRF_FIELD}=${session.csrf}&x=1`), info);
  assert.equal(c.session, session);
  assert.deepEqual(c.viewer, { subject: "alice", csrf: session.csrf });
  assert.equal(c.form.get("x"), "1");
  const read = await guard(req("GET"), info);
  assert.equal([...read.form].length, 0);
});

Deno.test("recoverConsole(): a page's refusal is the error page; failures and pre-page errors go on", () => {
  const { session } = setUp();
  const context: ConsoleContext = {
    session,
    viewer: { subject: "alice", csrf: session.csrf },
    form: new URLSearchParams(),
  };
  const res = recoverConsole(new OAuthError("not_found", 404, "No such user"), context);
  assert.equal(res.status, 404);
  assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
  const failure = new OAuthError("server_error", 500, "broke");
  assert.throws(() => recoverConsole(failure, context), (e) => e === failure);
  // A body too large before any page ran is the listener's answer, as before the group.
  const tooLarge = new OAuthError("invalid_request", 413, "too large");
  assert.throws(() => recoverConsole(tooLarge, undefined), (e) => e === tooLarge);
});
