/**
 * The operator console over plain HTTP: where it is served, which credentials open it (the
 * internal API's gate, lockout included), and the audit lines of what an operator does.
 * The browser walk-through is `admin_console_test.ts`.
 */
import assert from "node:assert/strict";
import { createMemoryLogger } from "@org/shared";
import {
  consoleCsrf,
  consoleForm,
  consoleLogin,
  consoleSession,
  FORM,
  operatorToken,
} from "../support/console.ts";
import { adminJson, internalToml, SECRET } from "../support/internal_api.ts";
import { startTokenServer, type TokenServer } from "../support/token_server.ts";
import { testUser } from "../support/users.ts";
import { startWebhookReceiver } from "../support/webhook_receiver.ts";
import { SERVICE_ACTOR } from "../../server/audit/audit_trail.ts";
import { deliveryId } from "../../server/webhooks/delivery_view.ts";
import { endpointId } from "../../server/config/webhooks.ts";
import { FAILING_AFTER } from "../../server/webhooks/retry_schedule.ts";

const WHSEC = "whsec_" + btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));

Deno.test("admin console: absent unless the internal API is enabled, and never on the public listener", async () => {
  {
    await using te = await startTokenServer({ toml: `[server]\nrole = "admin"\n` });
    const res = await fetch(`${te.internalUrl}/admin/login`);
    await res.body?.cancel();
    assert.equal(res.status, 404);
  }
  {
    await using te = await startTokenServer({ toml: internalToml() });
    for (const base of [te.url, te.internalUrl!]) {
      const res = await fetch(`${base}/admin/login`);
      await res.body?.cancel();
      assert.equal(res.status, base === te.url ? 404 : 200);
    }
  }
});

Deno.test("admin console: the shared secret opens no session (it names no operator)", async () => {
  await using te = await startTokenServer({ toml: internalToml() });
  const res = await consoleLogin(te, SECRET);
  assert.equal(res.status, 401);
  assert.equal(res.headers.get("set-cookie"), null);
  assert.match(await res.text(), /operator token or a client certificate/);
});

Deno.test("admin console: the mTLS proxy header signs in, only from a trusted proxy", async () => {
  const toml = (proxy: string) =>
    `[internal_api]\nenabled = true\nauth_methods = ["mtls"]\n` +
    `[internal_api.mtls]\ntrusted_proxies = ["${proxy}"]\nallowed_subjects = ["CN=ops"]\n`;
  {
    const { log, lines } = createMemoryLogger();
    await using te = await startTokenServer({ log, toml: toml("127.0.0.1") });
    const res = await consoleLogin(te, "", { "x-client-cert-subject": "CN=ops" });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.match(res.headers.get("set-cookie") ?? "", /^te_console=[A-Za-z0-9_-]{43}; /);
    const line = lines.find((l) => l.msg === "console login");
    assert.equal(line?.operator, "CN=ops");
    assert.equal(line?.auth, "mtls");
  }
  {
    await using te = await startTokenServer({ toml: toml("10.9.9.9") });
    const res = await consoleLogin(te, "", { "x-client-cert-subject": "CN=ops" });
    await res.body?.cancel();
    assert.equal(res.status, 401);
    assert.equal(res.headers.get("set-cookie"), null);
  }
});

Deno.test("admin console: failed logins count toward the operator lockout, as on the API", async () => {
  await using te = await startTokenServer({
    toml: `[internal_api]\nenabled = true\nauth_methods = ["operator_token"]\n` +
      `[internal_api.lockout]\nthreshold = 2\n`,
  });
  for (const want of [401, 401, 429]) {
    const res = await consoleLogin(te, "not-a-token");
    await res.body?.cancel();
    assert.equal(res.status, want);
  }
  // Locked out: even a valid token is not looked at, on the console as on the API.
  const res = await consoleLogin(te, operatorToken(te));
  await res.body?.cancel();
  assert.equal(res.status, 429);
  assert.ok(Number(res.headers.get("retry-after")) > 0);
});

Deno.test("admin console: an action is audited under the operator's principal by the API's own line", async () => {
  const { log, lines } = createMemoryLogger();
  await using te = await startTokenServer({
    log,
    toml: `[internal_api]\nenabled = true\nauth_methods = ["operator_token", "shared_secret"]\n` +
      `shared_secret = "${SECRET}"\n`,
  });
  const user = await adminJson<{ id: string }>(te, "POST", "/internal/users", 201, {
    body: { external_id: "e1", provider: "idp", email: "a@example.com" },
  });
  const cookie = await consoleSession(te, "carol");
  const csrf = await consoleCsrf(te, cookie, `/admin/users/${user.id}`);
  const post = await fetch(`${te.internalUrl}/admin/users/${user.id}/status`, {
    method: "POST",
    headers: consoleForm(te, cookie),
    body: new URLSearchParams({ csrf, status: "suspended" }),
    redirect: "manual",
  });
  await post.body?.cancel();
  assert.equal(post.status, 303);
  const audit = lines.find((l) => l.action === "user.update");
  assert.equal(audit?.operator, "carol");
  assert.equal(audit?.auth, "operator_token");
  assert.equal(audit?.status, "suspended");
});

Deno.test("internal API: a user's live sessions are listed, and one is revoked alone", async () => {
  await using te = await startTokenServer({ toml: internalToml() });
  const user = await adminJson<{ id: string }>(te, "POST", "/internal/users", 201, {
    body: { external_id: "e1", provider: "idp", email: "a@example.com" },
  });
  const { sessions } = te.server.deps.store;
  const now = Date.now();
  const family = (id: string) => ({
    id,
    user_id: user.id,
    created_at: now,
    expires_at: now + 3_600_000,
    revoked: false,
  });
  const record = (fid: string) => ({
    hash: `h-${fid}`,
    family_id: fid,
    user_id: user.id,
    issued_at: now,
    expires_at: now + 3_600_000,
  });
  const s1 = "ses_01J00000000000000000000001";
  const s2 = "ses_01J00000000000000000000002";
  await sessions.create(family(s1), record(s1));
  await sessions.create(family(s2), record(s2));
  const listed = await adminJson<{ sessions: { id: string }[] }>(
    te,
    "GET",
    `/internal/users/${user.id}/sessions`,
    200,
  );
  assert.deepEqual(listed.sessions.map((s) => s.id), [s1, s2]);
  await adminJson(te, "DELETE", `/internal/users/${user.id}/sessions/${s1}`, 200);
  await adminJson(te, "DELETE", `/internal/users/${user.id}/sessions/${s1}`, 404);
  await adminJson(te, "DELETE", `/internal/users/${user.id}/sessions/not-a-session`, 404);
  const after = await adminJson<{ sessions: { id: string }[] }>(
    te,
    "GET",
    `/internal/users/${user.id}/sessions`,
    200,
  );
  assert.deepEqual(after.sessions.map((s) => s.id), [s2]);
});

Deno.test("admin console: the users page pages with the API's cursor", async () => {
  await using te = await startTokenServer({
    toml: `[internal_api]\nenabled = true\nauth_methods = ["operator_token"]\n`,
  });
  for (let n = 0; n < 51; n++) {
    await createUser(te, n);
  }
  const cookie = await consoleSession(te);
  const rows = (html: string) => [...html.matchAll(/<a href="\/admin\/users\/usr_/g)].length;
  const first = await (await fetch(`${te.internalUrl}/admin/users`, { headers: { cookie } }))
    .text();
  assert.equal(rows(first), 50);
  const next = /rel="next" href="([^"]+)"/.exec(first)![1]!;
  const second = await (await fetch(`${te.internalUrl}${next}`, { headers: { cookie } })).text();
  assert.equal(rows(second), 1);
  assert.doesNotMatch(second, /rel="next"/);
  assert.match(second, /u50@example.com/);
});

async function createUser(te: TokenServer, n: number, events = false): Promise<void> {
  const user = testUser(n, Date.now());
  const { webhooks } = te.server.deps;
  const { ok } = await te.server.deps.store.users.create(
    user,
    events ? webhooks.userCreated(user, "admin", SERVICE_ACTOR) : undefined,
  );
  assert.ok(ok);
}

Deno.test("admin console: the cookie is Secure when the issuer is https, and lasts no longer than the token", async () => {
  await using te = await startTokenServer({
    toml: `[server]\nissuer = "https://auth.example.com"\n` +
      `[internal_api]\nenabled = true\nauth_methods = ["operator_token"]\n`,
  });
  const res = await consoleLogin(te, operatorToken(te));
  await res.body?.cancel();
  const cookie = res.headers.get("set-cookie") ?? "";
  assert.match(cookie, /; HttpOnly; SameSite=Strict; Secure$/);
  const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)![1]);
  assert.ok(maxAge > 590 && maxAge <= 600, `Max-Age ${maxAge} within the token's 600 s`);
});

/** The console and the internal API, with one webhook endpoint whose sends the test drives. */
function startWithWebhooks(receiverUrl: string) {
  return startTokenServer({
    scheduler: { every: () => () => {} },
    env: { W: WHSEC },
    toml: `[internal_api]\nenabled = true\nauth_methods = ["operator_token"]\n` +
      `[[webhooks.endpoints]]\nurl = "${receiverUrl}"\nsecret = "\${W}"\n`,
  });
}

Deno.test("admin console: a redelivery needs the CSRF token; sign-in, redelivery and logout are audited", async () => {
  await using receiver = startWebhookReceiver(WHSEC);
  await using te = await startWithWebhooks(receiver.url);
  await createUser(te, 1, true);
  assert.equal(await te.server.webhooks!.deliverDue(), 1);
  const [delivery] = await te.server.deps.store.outbox.deliveries({}, 1);
  const id = deliveryId(delivery!.id, delivery!.endpoint);
  const cookie = await consoleSession(te, "dora");
  const page = await (await fetch(`${te.internalUrl}/admin/webhooks`, { headers: { cookie } }))
    .text();
  assert.match(page, new RegExp(`action="/admin/webhooks/deliveries/${id}/redeliver"`));
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
  const redeliver = (body: Record<string, string>) =>
    fetch(`${te.internalUrl}/admin/webhooks/deliveries/${id}/redeliver`, {
      method: "POST",
      headers: consoleForm(te, cookie),
      body: new URLSearchParams(body),
      redirect: "manual",
    });
  const refused = await redeliver({});
  await refused.body?.cancel();
  assert.equal(refused.status, 403);
  // With the session and its token, but posted with an opaque origin, or with no word from the
  // browser at all: refused, nothing queued.
  for (const origin of [{ origin: "null" }, {}]) {
    const opaque = await fetch(`${te.internalUrl}/admin/webhooks/deliveries/${id}/redeliver`, {
      method: "POST",
      headers: { ...FORM, cookie, ...origin },
      body: new URLSearchParams({ csrf }),
      redirect: "manual",
    });
    await opaque.body?.cancel();
    assert.equal(opaque.status, 403, JSON.stringify(origin));
  }
  assert.equal(await te.server.webhooks!.deliverDue(), 0, "nothing queued without the token");
  const done = await redeliver({ csrf });
  await done.body?.cancel();
  assert.equal(done.status, 303);
  assert.equal(done.headers.get("location"), "/admin/webhooks?done=redelivered");
  assert.equal(await te.server.webhooks!.deliverDue(), 1);
  const logout = await fetch(`${te.internalUrl}/admin/logout`, {
    method: "POST",
    headers: consoleForm(te, cookie),
    body: new URLSearchParams({ csrf }),
    redirect: "manual",
  });
  await logout.body?.cancel();
  const trail = await te.server.deps.store.audit.list({ actor: "dora" }, 10);
  assert.deepEqual(trail.map((r) => r.action).reverse(), [
    "console.login",
    "webhook.redeliver",
    "console.logout",
  ]);
  assert.deepEqual(trail[2]!.details, { auth: "operator_token", peer: "127.0.0.1" });
});

Deno.test("admin console: the webhooks page shows an endpoint failing from the count every instance shares, and ok again after a delivery", async () => {
  await using receiver = startWebhookReceiver(WHSEC);
  await using te = await startWithWebhooks(receiver.url);
  const id = endpointId(receiver.url);
  const cookie = await consoleSession(te);
  const page = async () =>
    await (await fetch(`${te.internalUrl}/admin/webhooks`, { headers: { cookie } })).text();
  assert.match(await page(), /<span class="status delivered">ok<\/span>/);
  // Failed attempts as another instance would count them, in the shared store.
  for (let i = 0; i < FAILING_AFTER; i++) {
    await te.server.deps.store.webhookHealth.record(id, false);
  }
  assert.match(
    await page(),
    new RegExp(`failing</span> <small>${FAILING_AFTER} failed attempts in a row</small>`),
  );
  await te.server.deps.store.webhookHealth.record(id, true);
  assert.match(await page(), /<span class="status delivered">ok<\/span>/);
});

Deno.test("admin console: the audit and webhooks pages refuse a bad filter with the API's message", async () => {
  await using te = await startTokenServer({
    toml: `[internal_api]\nenabled = true\nauth_methods = ["operator_token"]\n`,
  });
  const cookie = await consoleSession(te);
  for (
    const [path, message] of [
      ["/admin/audit?from=soon", /must be an ISO 8601 time/],
      ["/admin/webhooks?state=lost", /must be one of pending, delivered, failed/],
    ] as const
  ) {
    const page = await fetch(`${te.internalUrl}${path}`, { headers: { cookie } });
    assert.equal(page.status, 400, path);
    assert.match(await page.text(), message);
  }
  const ok = await fetch(`${te.internalUrl}/admin/audit?action=console.login`, {
    headers: { cookie },
  });
  assert.equal(ok.status, 200);
  assert.match(await ok.text(), /<code class="nowrap">console\.login<\/code>/);
});

Deno.test("admin console: a malformed token pasted into sign-in answers the sign-in page, never a 500", async () => {
  await using te = await startTokenServer({
    toml: `[internal_api]\nenabled = true\nauth_methods = ["operator_token"]\n` +
      `[internal_api.lockout]\nthreshold = 100\n`,
  });
  const good = operatorToken(te);
  for (
    const pasted of [
      "not-a-token",
      `${good.slice(0, 20)}\n${good.slice(20)}`, // a line break from a wrapped terminal
      `${good} trailing words`,
      "Bearer Bearer x",
      "tökén-ä\u0000\u007f",
      "a.b.c",
      "x".repeat(20_000),
    ]
  ) {
    const res = await consoleLogin(te, pasted);
    const body = await res.text();
    assert.equal(res.status, 401, `${JSON.stringify(pasted.slice(0, 40))}: ${body.slice(0, 200)}`);
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(body, /not a valid operator token/);
    // The command it names exists when running from a checkout (no `token-exchange` there).
    assert.match(body, /<code>deno run -A server\/main\.ts operator-token --sub NAME<\/code>/);
  }
});
