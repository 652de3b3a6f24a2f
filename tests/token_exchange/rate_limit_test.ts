import assert from "node:assert/strict";
import { FixedClock } from "@org/shared";
import { startTokenServer } from "../support/token_server.ts";

const T0 = Date.UTC(2030, 0, 1); // a window boundary for any window that divides a day

async function post(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: "token=unknown",
  });
}

Deno.test("rate limit: /token, /revoke, /nonce and /sessions share a per-client budget; past it 429 slow_down with Retry-After until the window ends", async () => {
  const clock = new FixedClock(T0);
  await using te = await startTokenServer({
    clock,
    toml: `[grants]\nid_token = true\n[rate_limit]\nrequests = 3\nwindow = "60s"\n`,
  });
  assert.equal((await post(`${te.url}/revoke`)).status, 200);
  const token = await post(`${te.url}/token`);
  assert.equal(token.status, 400);
  await token.body?.cancel();
  const nonce = await fetch(`${te.url}/nonce`, { method: "POST" });
  assert.equal(nonce.status, 200);
  await nonce.body?.cancel();
  clock.advance(15_000);
  for (const path of ["/revoke", "/token", "/nonce"]) {
    const res = await post(`${te.url}${path}`);
    assert.equal(res.status, 429, path);
    assert.equal(res.headers.get("retry-after"), "45");
    assert.deepEqual((await res.json()).error, "slow_down");
  }
  // The sessions API too, by its route: `/sessions/{id}` is one path whatever the id.
  for (
    const [method, path] of [["GET", "/sessions"], ["DELETE", "/sessions/ses_unknown"]] as const
  ) {
    const res = await fetch(`${te.url}${path}`, { method });
    assert.equal(res.status, 429, `${method} ${path}`);
    await res.body?.cancel();
  }
  const health = await fetch(`${te.url}/health`);
  assert.equal(health.status, 200, "other routes are not limited");
  await health.body?.cancel();
  clock.advance(45_000);
  assert.equal((await post(`${te.url}/revoke`)).status, 200, "a new window");
});

Deno.test("rate limit: clients behind a trusted proxy (a CIDR range) are counted by the forwarded address", async () => {
  const clock = new FixedClock(T0);
  await using te = await startTokenServer({
    clock,
    toml: `[rate_limit]\nrequests = 1\nclient_ip_header = "X-Forwarded-For"\n` +
      `trusted_proxies = ["127.0.0.0/8"]\n`,
  });
  const from = (ip: string) => ({ "x-forwarded-for": ip });
  assert.equal((await post(`${te.url}/revoke`, from("203.0.113.1"))).status, 200);
  const limited = await post(`${te.url}/revoke`, from("203.0.113.1"));
  assert.equal(limited.status, 429);
  await limited.body?.cancel();
  assert.equal((await post(`${te.url}/revoke`, from("203.0.113.2"))).status, 200);
});

Deno.test("rate limit: a forwarded address from an untrusted peer is ignored", async () => {
  await using te = await startTokenServer({
    clock: new FixedClock(T0),
    toml: `[rate_limit]\nrequests = 1\nclient_ip_header = "x-forwarded-for"\n` +
      `trusted_proxies = ["10.0.0.0/8", "::1"]\n`,
  });
  assert.equal((await post(`${te.url}/revoke`, { "x-forwarded-for": "203.0.113.1" })).status, 200);
  const res = await post(`${te.url}/revoke`, { "x-forwarded-for": "203.0.113.2" });
  assert.equal(res.status, 429);
  await res.body?.cancel();
});

Deno.test("rate limit: rate_limit.enabled = false never answers 429", async () => {
  await using te = await startTokenServer({
    clock: new FixedClock(T0),
    toml: `[rate_limit]\nenabled = false\nrequests = 1\n`,
  });
  for (let i = 0; i < 5; i++) assert.equal((await post(`${te.url}/revoke`)).status, 200);
});
