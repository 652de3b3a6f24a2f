/**
 * The audit trail end to end: each operator action and each security event is a record in the
 * store, listed by `GET /internal/audit` in cursor pages with its filters, kept for
 * `audit.retention`, and never holding a token or a secret.
 */
import assert from "node:assert/strict";
import { FixedClock } from "@org/shared";
import {
  adminFetch,
  adminJson,
  internalToml,
  SECRET,
  signInHarness,
} from "../support/internal_api.ts";
import { startTokenServer, type TokenServer } from "../support/token_server.ts";
import type { AuditView } from "../../server/audit/audit_view.ts";
import { WEBHOOK_EVENT_TYPES } from "../../server/webhooks/event_types.ts";

interface Page {
  records: AuditView[];
  next_cursor: string | null;
}

const audit = (te: TokenServer, query = "") =>
  adminJson<Page>(te, "GET", `/internal/audit${query}`, 200);

const form = (body: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(body),
});

Deno.test("audit: each operator action is a record naming the operator, beside the events it caused", async () => {
  await using h = await signInHarness({ toml: internalToml() });
  const { te } = h;
  const tokens = await h.tokens("ada");
  const ada = (await te.server.deps.store.users.findByExternalId("idp", "ada"))!.id;
  const bob = await adminJson<{ id: string }>(te, "POST", "/internal/users", 201, {
    body: { provider: "idp", external_id: "bob", email: "bob@example.com" },
  });
  await adminJson(te, "PATCH", `/internal/users/${bob.id}`, 200, {
    body: { status: "suspended" },
  });
  await adminJson(te, "PUT", `/internal/users/${bob.id}/claims`, 200, { body: { tier: "pro" } });
  await adminJson(te, "PATCH", `/internal/users/${bob.id}/claims`, 200, { body: { seat: 2 } });
  await adminJson(te, "DELETE", `/internal/users/${bob.id}/claims`, 200);
  const { sessions } = await adminJson<{ sessions: { id: string }[] }>(
    te,
    "GET",
    `/internal/users/${ada}/sessions`,
    200,
  );
  await adminJson(te, "DELETE", `/internal/users/${ada}/sessions/${sessions[0]!.id}`, 200);
  await adminJson(te, "DELETE", `/internal/users/${bob.id}`, 200);
  await adminJson(te, "POST", "/internal/sessions/cleanup", 200);
  // Refused changes leave no record.
  await adminJson(te, "POST", "/internal/users", 409, {
    body: { provider: "idp", external_id: "bob", email: "bob@example.com" },
  });
  await adminJson(te, "PATCH", `/internal/users/${bob.id}`, 400, { body: { status: "gone" } });

  const { records } = await audit(te);
  const operatorActions = records.filter((r) => r.actor.type === "operator").reverse();
  const shared = { type: "operator", id: "shared-secret" };
  // Each action's record first, then the events it caused (the same commit).
  assert.deepEqual(operatorActions.map((r) => [r.action, r.user]), [
    ["user.create", bob.id],
    ["user.created", bob.id],
    ["user.update", bob.id],
    ["user.updated", bob.id],
    ["claims.replace", bob.id],
    ["user.updated", bob.id],
    ["claims.merge", bob.id],
    ["user.updated", bob.id],
    ["claims.clear", bob.id],
    ["user.updated", bob.id],
    ["session.revoke", ada],
    ["session.revoked", ada],
    ["user.delete", bob.id],
    ["user.deleted", bob.id],
    ["sessions.cleanup", null],
  ]);
  assert.ok(operatorActions.every((r) => JSON.stringify(r.actor) === JSON.stringify(shared)));
  const byAction = (a: string) => operatorActions.find((r) => r.action === a)!.details;
  assert.deepEqual(byAction("user.update"), {
    fields: ["status"],
    status: "suspended",
    from: "active",
  });
  assert.deepEqual(byAction("claims.merge"), { claims: ["seat"] });
  assert.deepEqual(byAction("session.revoked"), { session_id: sessions[0]!.id, reason: "admin" });
  assert.deepEqual(byAction("user.delete"), { from: "suspended" });
  assert.deepEqual(byAction("sessions.cleanup"), { deleted: 0 });
  // The first sign-in registered ada herself.
  const created = records.find((r) => r.action === "user.created" && r.user === ada)!;
  assert.deepEqual(created.actor, { type: "user", id: ada });
  assert.deepEqual(created.details, { source: "sign_in", provider: "idp" });
  assert.ok(!JSON.stringify(records).includes(tokens.refresh_token));
});

Deno.test("audit: security events are recorded with no webhook endpoint configured, and no token or secret is", async () => {
  const clock = new FixedClock();
  await using h = await signInHarness({
    clock,
    toml: internalToml("[internal_api.lockout]\nthreshold = 2\n"),
  });
  const { te } = h;
  assert.equal(te.server.deps.config.webhooks.endpoints.length, 0);
  const first = await h.tokens("eve");
  const eve = (await te.server.deps.store.users.findByExternalId("idp", "eve"))!.id;
  const rotated = await h.refresh(first.refresh_token);
  const next = (await rotated.json()).refresh_token as string;
  clock.advance(11_000); // past the grace window: the old token again is a reuse
  const reused = await h.refresh(first.refresh_token);
  assert.equal(reused.status, 400);
  await reused.body?.cancel();
  const second = await h.tokens("eve");
  const logout = await fetch(`${te.url}/revoke`, form({ token: second.refresh_token }));
  await logout.body?.cancel();
  for (let i = 0; i < 2; i++) {
    const res = await adminFetch(te, "GET", "/internal/stats", {
      headers: { authorization: "Bearer a-wrong-guess-of-the-secret" },
    });
    await res.body?.cancel();
  }
  clock.advance(te.server.deps.config.internal_api.lockout.window * 1000);

  const { records } = await audit(te);
  const events = records.filter((r) =>
    (WEBHOOK_EVENT_TYPES as readonly string[]).includes(r.action)
  )
    .reverse().map((r) => [r.action, r.actor.type, r.details.reason ?? null]);
  assert.deepEqual(events, [
    ["user.created", "user", null],
    ["refresh_token.reuse_detected", "service", null],
    ["session.revoked", "service", "reuse_detected"],
    ["session.revoked", "user", "logout"],
    ["operator.lockout", "peer", null],
  ]);
  const lockout = records.find((r) => r.action === "operator.lockout")!;
  assert.deepEqual(lockout.actor, { type: "peer", id: "127.0.0.1" });
  assert.equal(lockout.details.failures, 2);
  const reuse = records.find((r) => r.action === "refresh_token.reuse_detected")!;
  assert.equal(reuse.user, eve);

  // Neither the API's answer nor the stored records hold a token, a secret or a guess of one.
  const stored = JSON.stringify(await te.server.deps.store.audit.list({}, 1000));
  const answered = JSON.stringify(records);
  for (
    const secret of [
      first.refresh_token,
      first.access_token,
      next,
      second.refresh_token,
      second.access_token,
      SECRET,
      "a-wrong-guess-of-the-secret",
      "te-secret", // the provider's client secret
    ]
  ) {
    assert.ok(!stored.includes(secret), "no token or secret stored in the audit trail");
    assert.ok(!answered.includes(secret), "no token or secret listed");
  }
});

Deno.test("audit: cursor pages newest first, filters by actor, action, user and time range", async () => {
  const clock = new FixedClock(Date.parse("2030-01-01T00:00:00Z"));
  await using te = await startTokenServer({ clock, toml: internalToml() });
  const ids: string[] = [];
  for (const n of [0, 1, 2, 3, 4]) {
    const u = await adminJson<{ id: string }>(te, "POST", "/internal/users", 201, {
      body: { provider: "idp", external_id: `u${n}`, email: `u${n}@example.com` },
    });
    ids.push(u.id);
    clock.advance(3_600_000); // one hour apart
  }
  await adminJson(te, "PATCH", `/internal/users/${ids[1]}`, 200, { body: { display_name: "X" } });

  // 5 × (user.created, user.create) + (user.updated, user.update), newest first, in pages.
  const seen: AuditView[] = [];
  let cursor: string | null = "";
  let pages = 0;
  while (cursor !== null) {
    const page: Page = await audit(te, `?limit=3${cursor ? `&cursor=${cursor}` : ""}`);
    seen.push(...page.records);
    cursor = page.next_cursor;
    pages++;
  }
  assert.equal(pages, 4);
  assert.equal(seen.length, 12);
  assert.equal(new Set(seen.map((r) => r.id)).size, 12, "no record on two pages");
  assert.deepEqual(seen.map((r) => r.at), [...seen.map((r) => r.at)].sort().reverse());
  assert.deepEqual(seen.slice(0, 2).map((r) => r.action), ["user.updated", "user.update"]);

  const actions = (p: Page) => p.records.map((r) => `${r.action} ${r.user}`);
  assert.deepEqual(actions(await audit(te, `?user=${ids[1]}&action=user.update`)), [
    `user.update ${ids[1]}`,
  ]);
  assert.equal((await audit(te, "?action=user.create")).records.length, 5);
  assert.equal((await audit(te, "?actor=shared-secret")).records.length, 12);
  assert.equal((await audit(te, "?actor=someone-else")).records.length, 0);
  // The range: from inclusive, to exclusive; dates or date-times.
  const range = await audit(
    te,
    "?action=user.create&from=2030-01-01T01:00:00Z&to=2030-01-01T03:00:00.000Z",
  );
  assert.deepEqual(range.records.map((r) => r.user), [ids[2], ids[1]]);
  assert.equal((await audit(te, "?from=2030-01-02")).records.length, 0);
  assert.equal((await audit(te, "?to=2030-01-01")).records.length, 0);
  const paged = await audit(te, "?action=user.create&limit=2");
  const rest = await audit(te, `?action=user.create&limit=2&cursor=${paged.next_cursor}`);
  assert.deepEqual(rest.records.map((r) => r.user), [ids[2], ids[1]]);

  for (const bad of ["?from=yesterday", "?to=2030-13-45T00:00:00Z", "?limit=-1", "?cursor=x"]) {
    const res = await adminFetch(te, "GET", `/internal/audit${bad}`);
    assert.equal(res.status, 400, bad);
    assert.equal((await res.json()).error, "invalid_request");
  }
});

Deno.test("audit: records older than audit.retention go at the sweep", async () => {
  const clock = new FixedClock();
  await using te = await startTokenServer({
    clock,
    toml: internalToml() + `[audit]\nretention = "1h"\n`,
  });
  assert.equal(te.server.deps.config.audit.retention, 3600);
  await adminJson(te, "POST", "/internal/users", 201, {
    body: { provider: "idp", external_id: "old", email: "old@example.com" },
  });
  clock.advance(1_800_000);
  await adminJson(te, "POST", "/internal/sessions/cleanup", 200);
  assert.equal((await audit(te)).records.length, 3, "nothing past its retention yet");
  clock.advance(1_800_000);
  await adminJson(te, "POST", "/internal/sessions/cleanup", 200);
  assert.deepEqual((await audit(te)).records.map((r) => r.action), [
    "sessions.cleanup",
    "sessions.cleanup",
  ]);
});
