import assert from "node:assert/strict";
import { FixedClock, seededRandom } from "@org/shared";
import type { OperatorPrincipal } from "../auth/operator_gate.ts";
import { ConsoleSessions, MAX_SESSION_MS } from "./console_sessions.ts";

const alice: OperatorPrincipal = { method: "operator_token", subject: "alice", peer: "127.0.0.1" };

Deno.test("console sessions: a session ends at the token's exp, and at logout", () => {
  const clock = new FixedClock(1_000_000);
  const sessions = new ConsoleSessions(clock, seededRandom("console-1"));
  const { token, session } = sessions.open(alice, 1_000_000 + 60_000);
  assert.equal(session.expiresAt, 1_060_000);
  assert.equal(sessions.get(token)?.operator.subject, "alice");
  clock.advance(59_999);
  assert.ok(sessions.get(token));
  clock.advance(1);
  assert.equal(sessions.get(token), undefined);
  const second = sessions.open(alice, clock.now() + 60_000);
  assert.equal(sessions.end(second.token), true);
  assert.equal(sessions.get(second.token), undefined);
  assert.equal(sessions.end(second.token), false);
});

Deno.test("console sessions: never longer than the cap, tokens and CSRF tokens differ", () => {
  const clock = new FixedClock(0);
  const sessions = new ConsoleSessions(clock, seededRandom("console-2"));
  const a = sessions.open(alice, Number.MAX_SAFE_INTEGER);
  const b = sessions.open(alice, Number.MAX_SAFE_INTEGER);
  assert.equal(a.session.expiresAt, MAX_SESSION_MS);
  assert.notEqual(a.token, b.token);
  assert.notEqual(a.session.csrf, b.session.csrf);
  assert.notEqual(a.token, a.session.csrf);
  assert.equal(sessions.get("x".repeat(43)), undefined);
  assert.equal(sessions.get(undefined), undefined);
});
