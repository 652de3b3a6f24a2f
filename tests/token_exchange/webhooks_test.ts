/**
 * Webhooks end to end: each event from the action that causes it, signed by the service and
 * verified by `standardwebhooks` on a loopback receiver; retries driven by the injected clock.
 */
import assert from "node:assert/strict";
import { FixedClock } from "@org/shared";
import { adminFetch, adminJson, internalToml, signInHarness } from "../support/internal_api.ts";
import { runTokenCli, startTokenServer } from "../support/token_server.ts";
import { startWebhookReceiver } from "../support/webhook_receiver.ts";
import type { Scheduler } from "../../server/scheduler.ts";

const WHSEC = "whsec_" + btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));

function webhooksToml(url: string, events?: string[]): string {
  return `[[webhooks.endpoints]]\nurl = "${url}"\nsecret = "\${W}"\n` +
    (events ? `events = ${JSON.stringify(events)}\n` : "");
}

/**
 * A scheduler that never runs its tasks: the tests send by calling `deliverDue()`, so a tick
 * of the real one-second timer on a slow machine cannot send before a test looks.
 */
const manual: Scheduler = { every: () => () => {} };

const form = (body: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(body),
});

Deno.test("webhooks: each event comes from the action that causes it, signed per Standard Webhooks", async () => {
  await using receiver = startWebhookReceiver(WHSEC);
  const clock = new FixedClock();
  await using h = await signInHarness({
    clock,
    scheduler: manual,
    env: { W: WHSEC },
    toml: internalToml("[internal_api.lockout]\nthreshold = 2\n") + webhooksToml(receiver.url),
  });
  const { te } = h;

  // Self-registration at the first sign-in; a rotation emits nothing.
  const first = await h.tokens("alice");
  const rotated = await h.refresh(first.refresh_token);
  assert.equal(rotated.status, 200);
  await rotated.body?.cancel();
  // The old token again, past the grace window: reuse, the session revoked.
  clock.advance(11_000);
  const reused = await h.refresh(first.refresh_token);
  assert.equal(reused.status, 400);
  await reused.body?.cancel();
  // Logout.
  const second = await h.tokens("alice");
  const logout = await fetch(`${te.url}/revoke`, form({ token: second.refresh_token }));
  assert.equal(logout.status, 200);
  await logout.body?.cancel();
  // The operator's changes.
  const bob = await adminJson<{ id: string }>(te, "POST", "/internal/users", 201, {
    body: { provider: "idp", external_id: "bob", email: "bob@example.com", display_name: "Bob" },
  });
  await adminJson(te, "PATCH", `/internal/users/${bob.id}`, 200, {
    body: { display_name: "Robert" },
  });
  await h.tokens("alice");
  const users = await adminJson<{ users: { id: string; external_id: string }[] }>(
    te,
    "GET",
    "/internal/users",
    200,
  );
  const alice = users.users.find((u) => u.external_id === "alice")!;
  await adminJson(te, "DELETE", `/internal/users/${alice.id}`, 200);
  // Two failed operator authentications reach the lockout threshold.
  for (let i = 0; i < 2; i++) {
    const res = await adminFetch(te, "GET", "/internal/stats", {
      headers: { authorization: "Bearer wrong" },
    });
    await res.body?.cancel();
  }

  assert.equal(receiver.received.length, 0, "nothing is sent before the sender runs");
  const delivered = await te.server.webhooks!.deliverDue();
  const got = receiver.received;
  assert.equal(delivered, got.length);
  assert.ok(got.every((r) => r.verified), "standardwebhooks verifies every signature");
  assert.deepEqual(got.map((r) => [r.type, r.data.reason ?? r.data.source ?? null]), [
    ["user.created", "sign_in"],
    ["refresh_token.reuse_detected", null],
    ["session.revoked", "reuse_detected"],
    ["session.revoked", "logout"],
    ["user.created", "admin"],
    ["user.updated", null],
    ["user.deleted", null],
    ["session.revoked", "user_deleted"],
    ["operator.lockout", null],
  ]);
  assert.deepEqual(got[5]!.data.changed, ["display_name"]);
  assert.equal((got[0]!.data.user as { id: string }).id, alice.id);
  assert.equal(got[2]!.data.user_id, alice.id);
  assert.equal(got[8]!.data.peer, "127.0.0.1");
  // No token or secret in any payload.
  for (const r of got) {
    for (const secret of [first.refresh_token, first.access_token, second.refresh_token, WHSEC]) {
      assert.ok(!r.body.includes(secret), `${r.type} holds no token or secret`);
    }
  }
  assert.equal(await te.server.webhooks!.deliverDue(), 0, "each event is sent once");
});

Deno.test("webhooks: an endpoint receives only the events it subscribed to", async () => {
  await using receiver = startWebhookReceiver(WHSEC);
  await using te = await startTokenServer({
    scheduler: manual,
    env: { W: WHSEC },
    toml: internalToml() + webhooksToml(receiver.url, ["user.deleted"]),
  });
  const u = await adminJson<{ id: string }>(te, "POST", "/internal/users", 201, {
    body: { provider: "idp", external_id: "c", email: "c@example.com", display_name: "C" },
  });
  await adminJson(te, "DELETE", `/internal/users/${u.id}`, 200);
  await te.server.webhooks!.deliverDue();
  assert.deepEqual(receiver.received.map((r) => r.type), ["user.deleted"]);
});

Deno.test("webhooks: a receiver that fails, then recovers, gets every event in order, nothing lost", async () => {
  await using receiver = startWebhookReceiver(WHSEC);
  const clock = new FixedClock();
  await using te = await startTokenServer({
    clock,
    scheduler: manual,
    env: { W: WHSEC },
    toml: internalToml() + webhooksToml(receiver.url),
  });
  for (const n of [1, 2, 3]) {
    await adminJson(te, "POST", "/internal/users", 201, {
      body: {
        provider: "idp",
        external_id: `u${n}`,
        email: `u${n}@example.com`,
        display_name: `U${n}`,
      },
    });
  }
  const sender = te.server.webhooks!;
  const endpoint = te.server.deps.config.webhooks.endpoints[0]!.id;
  receiver.answer = 503;
  // Five failures, each after the backoff (at most 5 s, 10 s, 20 s, …) of the one before.
  for (let i = 0; i < 5; i++) {
    assert.equal(await sender.deliverDue(), 0);
    assert.equal(receiver.received.length, i + 1, "one attempt per due time, the head only");
    assert.equal(await sender.deliverDue(), 0, "not again before its backoff");
    assert.equal(receiver.received.length, i + 1);
    clock.advance(5_000 * 2 ** i);
  }
  assert.equal(sender.failing(endpoint), true);
  assert.match(
    te.server.deps.metrics.render(),
    new RegExp(`webhook_endpoint_failing\\{endpoint="${endpoint}"\\} 1`),
  );
  receiver.answer = 204;
  assert.equal(await sender.deliverDue(), 3);
  assert.equal(sender.failing(endpoint), false);
  const ok = receiver.received.filter((r) => r.status === 204);
  assert.deepEqual(
    ok.map((r) => r.data.user).map((u) => (u as { external_id: string }).external_id),
    [
      "u1",
      "u2",
      "u3",
    ],
  );
  // The retried message kept its webhook-id (receivers deduplicate on it).
  assert.equal(new Set(receiver.received.slice(0, 6).map((r) => r.id)).size, 1);
  assert.deepEqual(await te.server.deps.store.outbox.pending(endpoint, 10), []);
});

Deno.test("webhooks: an event committed before a restart is delivered after it", async () => {
  await using receiver = startWebhookReceiver(WHSEC);
  const kv = await Deno.openKv(":memory:");
  try {
    const options = {
      kv,
      scheduler: manual,
      env: { W: WHSEC },
      toml: internalToml() + webhooksToml(receiver.url),
    };
    {
      await using te = await startTokenServer(options);
      await adminJson(te, "POST", "/internal/users", 201, {
        body: { provider: "idp", external_id: "r", email: "r@example.com", display_name: "R" },
      });
    } // stopped before any send
    assert.equal(receiver.received.length, 0);
    await using again = await startTokenServer(options);
    assert.equal(await again.server.webhooks!.deliverDue(), 1);
    assert.deepEqual(receiver.received.map((r) => [r.type, r.verified]), [["user.created", true]]);
  } finally {
    kv.close();
  }
});

Deno.test("webhooks: serve refuses hostile endpoints (plain http to a public host, a short secret) in one report", async () => {
  const dir = await Deno.makeTempDir({ prefix: "te-wh-config-" });
  try {
    await Deno.writeTextFile(
      `${dir}/token-exchange.toml`,
      `[[webhooks.endpoints]]\nurl = "http://203.0.113.7/hook"\nsecret = "\${W}"\n` +
        `[[webhooks.endpoints]]\nurl = "http://localhost.attacker.example/hook"\nsecret = "\${W}"\n` +
        `[[webhooks.endpoints]]\nurl = "https://hooks.example.com/a"\nsecret = "\${SHORT}"\n`,
    );
    const out = await runTokenCli(dir, ["serve"], {
      W: WHSEC,
      SHORT: "whsec_" + btoa("twenty-byte-secret!!"),
    });
    assert.equal(out.code, 1);
    assert.match(out.stderr, /webhooks\.endpoints\[0\]\.url: .* must use https/);
    assert.match(out.stderr, /webhooks\.endpoints\[1\]\.url: .* must use https/);
    assert.match(out.stderr, /webhooks\.endpoints\[2\]\.secret: must be at least 24 bytes, got 20/);
    assert.doesNotMatch(out.stdout, /listening/);
    assert.equal(out.stderr.includes(WHSEC), false, "the secret is never printed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
