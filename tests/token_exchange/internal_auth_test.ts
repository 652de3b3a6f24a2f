import assert from "node:assert/strict";
import { decodeProtectedHeader } from "jose";
import { createMemoryLogger, epochSeconds, FixedClock, seededRandom } from "@org/shared";
import { generateEd25519, jwtSigner } from "../../server/keys/ed25519.ts";
import { mintOperatorToken } from "../../server/auth/operator_token.ts";
import { createInternalHandler } from "../../server/endpoints/internal_handler.ts";
import { startTokenServer, type TokenServer } from "../support/token_server.ts";
import { adminFetch, internalToml, SECRET } from "../support/internal_api.ts";

const T0 = Date.UTC(2030, 0, 1);

async function status(res: Promise<Response>): Promise<number> {
  const r = await res;
  await r.body?.cancel();
  return r.status;
}

/** An operator token from the server's own key, with the default audience and claim. */
function operatorToken(
  te: TokenServer,
  clock: FixedClock,
  overrides: { sub?: string; ttl?: number; audience?: string; claim?: string } = {},
): string {
  return mintOperatorToken(
    (c, typ) => te.server.deps.keys.sign(c, typ),
    {
      issuer: te.issuer,
      audience: overrides.audience ?? "token-exchange-internal",
      requiredClaim: overrides.claim ?? "operator",
    },
    overrides.sub ?? "alice",
    overrides.ttl ?? 600,
    epochSeconds(clock),
    seededRandom("op"),
  );
}

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

Deno.test("internal routes: absent on every listener unless role is admin/all AND internal_api is enabled", async () => {
  const combos = [
    { role: "public", enabled: true },
    { role: "all", enabled: false },
    { role: "public", enabled: false },
  ];
  for (const { role, enabled } of combos) {
    const toml = `[server]\nrole = "${role}"\n` +
      internalToml().replace("enabled = true", `enabled = ${enabled}`);
    await using te = await startTokenServer({ toml });
    assert.equal(te.internalUrl, undefined, `${role}/${enabled}: no internal listener`);
    for (const path of ["/internal/stats", "/internal/users", "/internal/metrics"]) {
      const res = await fetch(`${te.url}${path}`, { headers: bearer(SECRET) });
      assert.equal(res.status, 404, `${role}/${enabled} ${path}`);
      assert.equal((await res.json()).error, "not_found");
    }
  }
});

Deno.test("internal routes: role all serves them on the internal listener only", async () => {
  await using te = await startTokenServer({ toml: internalToml() });
  assert.equal(await status(adminFetch(te, "GET", "/internal/stats")), 200);
  const pub = await fetch(`${te.url}/internal/stats`, { headers: bearer(SECRET) });
  assert.equal(pub.status, 404);
  await pub.body?.cancel();
  // The internal listener serves no public route.
  assert.equal(await status(adminFetch(te, "GET", "/keys")), 404);
  assert.equal(await status(adminFetch(te, "POST", "/token")), 404);
});

Deno.test("internal routes: role admin runs the internal listener and no public one", async () => {
  await using te = await startTokenServer({ toml: `[server]\nrole = "admin"\n${internalToml()}` });
  assert.equal(te.server.publicUrl, undefined);
  assert.equal(await status(adminFetch(te, "GET", "/internal/stats")), 200);
  assert.equal(await status(adminFetch(te, "GET", "/.well-known/openid-configuration")), 404);
});

Deno.test("internal listener: GET /health needs no authentication and never counts toward the lockout", async () => {
  await using te = await startTokenServer({
    toml: `[server]\nrole = "admin"\n${internalToml("[internal_api.lockout]\nthreshold = 2\n")}`,
  });
  for (let i = 0; i < 5; i++) {
    for (const auth of ["", "Bearer wrong"]) {
      const res = await adminFetch(te, "GET", "/health", { headers: { authorization: auth } });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { status: "ok", store: "ok" });
    }
  }
  assert.equal(
    await status(adminFetch(te, "HEAD", "/health", { headers: { authorization: "" } })),
    200,
  );
  assert.equal(
    await status(adminFetch(te, "POST", "/health", { headers: { authorization: "" } })),
    405,
  );
  // Ten unauthenticated health checks later, the peer is not locked out.
  assert.equal(await status(adminFetch(te, "GET", "/internal/stats")), 200);
});

Deno.test("internal listener: role admin with internal_api disabled starts, warns, and serves only /health", async () => {
  const { log, lines } = createMemoryLogger();
  await using te = await startTokenServer({
    log,
    toml: `[server]\nrole = "admin"\n` +
      internalToml().replace("enabled = true", "enabled = false").replace(SECRET, "short"),
  });
  assert.equal(te.server.publicUrl, undefined);
  assert.ok(te.internalUrl);
  assert.equal(await status(adminFetch(te, "GET", "/health")), 200);
  for (const path of ["/internal/stats", "/internal/users", "/token"]) {
    const res = await adminFetch(te, "GET", path);
    assert.equal(res.status, 404, path);
    assert.equal((await res.json()).error, "not_found");
  }
  const warning = lines.find((l) =>
    l.level === "warn" && /internal_api\.enabled/.test(String(l.msg))
  );
  assert.ok(warning, JSON.stringify(lines));
});

Deno.test("operator auth: an unauthenticated request gets 401 unauthorized with a fixed description, unknown paths too", async () => {
  await using te = await startTokenServer({ toml: internalToml() });
  const bodies = [];
  for (
    const [path, auth] of [
      ["/internal/stats", {}],
      ["/internal/stats", bearer("x".repeat(32))],
      ["/internal/nope", {}],
    ] as const
  ) {
    const res = await adminFetch(te, "GET", path, { headers: { authorization: "", ...auth } });
    assert.equal(res.status, 401, path);
    bodies.push(await res.json());
  }
  for (const b of bodies) {
    assert.deepEqual(b, {
      error: "unauthorized",
      error_description: "Operator authentication is required",
    });
  }
});

Deno.test("operator auth: shared_secret accepts the exact secret only", async () => {
  await using te = await startTokenServer({ toml: internalToml() });
  assert.equal(await status(adminFetch(te, "GET", "/internal/stats")), 200);
  const wrong = SECRET.slice(0, -1) + "4";
  for (const h of [bearer(wrong), bearer(SECRET + "x"), { authorization: `Basic ${SECRET}` }]) {
    assert.equal(await status(adminFetch(te, "GET", "/internal/stats", { headers: h })), 401);
  }
});

Deno.test("config: the service refuses to start with a shared secret shorter than 32 bytes", async () => {
  await assert.rejects(
    startTokenServer({ toml: internalToml().replace(SECRET, "short-secret") }),
    /internal_api.shared_secret: must be at least 32 bytes/,
  );
});

Deno.test("operator auth: operator_token accepts our JWT with the audience and claim, refuses the rest", async () => {
  const clock = new FixedClock(T0);
  await using te = await startTokenServer({
    clock,
    toml: `[internal_api]\nenabled = true\nauth_methods = ["operator_token"]\n` +
      `[internal_api.lockout]\nthreshold = 100\n`,
  });
  const ok = operatorToken(te, clock);
  assert.equal(
    await status(adminFetch(te, "GET", "/internal/stats", { headers: bearer(ok) })),
    200,
  );
  const foreign = mintOperatorToken(
    jwtSigner(generateEd25519(), "other"),
    { issuer: te.issuer, audience: "token-exchange-internal", requiredClaim: "operator" },
    "mallory",
    600,
    epochSeconds(clock),
    seededRandom("x"),
  );
  const refused = [
    operatorToken(te, clock, { audience: "someone-else" }),
    operatorToken(te, clock, { claim: "not_operator" }),
    foreign,
    // An access-token-shaped JWT (it has a sid) is never an operator token.
    te.server.deps.keys.sign({
      iss: te.issuer,
      sub: "usr_1",
      aud: "token-exchange-internal",
      operator: true,
      sid: "ses_1",
      iat: epochSeconds(clock),
      exp: epochSeconds(clock) + 60,
    }),
    // Every operator claim, no sid, but typed JWT (as access tokens are): not an operator token.
    te.server.deps.keys.sign({
      iss: te.issuer,
      sub: "alice",
      aud: "token-exchange-internal",
      operator: true,
      iat: epochSeconds(clock),
      exp: epochSeconds(clock) + 60,
    }),
    SECRET,
  ];
  assert.equal(decodeProtectedHeader(ok).typ, "operator+jwt");
  for (const t of refused) {
    assert.equal(
      await status(adminFetch(te, "GET", "/internal/stats", { headers: bearer(t) })),
      401,
    );
  }
  clock.advance(601_000);
  assert.equal(
    await status(adminFetch(te, "GET", "/internal/stats", { headers: bearer(ok) })),
    401,
  );
});

Deno.test("operator auth: mtls trusts the subject header only from a configured proxy and only for allowed subjects", async () => {
  const toml = (proxy: string) =>
    `[internal_api]\nenabled = true\nauth_methods = ["mtls"]\n` +
    `[internal_api.mtls]\ntrusted_proxies = ["${proxy}"]\nallowed_subjects = ["CN=ops,O=Example"]\n`;
  const subject = (s: string) => ({ "x-client-cert-subject": s, authorization: "" });
  {
    await using te = await startTokenServer({ toml: toml("127.0.0.0/8") });
    const get = (h: Record<string, string>) =>
      status(adminFetch(te, "GET", "/internal/stats", { headers: h }));
    assert.equal(await get(subject("CN=ops,O=Example")), 200);
    assert.equal(await get(subject("CN=intruder,O=Example")), 401);
    assert.equal(await get({ authorization: "" }), 401);
  }
  {
    await using te = await startTokenServer({ toml: toml("10.9.9.9") });
    const res = adminFetch(te, "GET", "/internal/stats", { headers: subject("CN=ops,O=Example") });
    assert.equal(await status(res), 401, "the header of an untrusted peer is ignored");
  }
});

Deno.test("operator auth: mechanisms are tried in the configured order; the first that accepts names the operator", async () => {
  for (const order of [["mtls", "shared_secret"], ["shared_secret", "mtls"]]) {
    const { log, lines } = createMemoryLogger();
    await using te = await startTokenServer({
      log,
      toml: internalToml().replace('["shared_secret"]', JSON.stringify(order)) +
        `[internal_api.mtls]\ntrusted_proxies = ["127.0.0.1"]\nallowed_subjects = ["CN=ops"]\n`,
    });
    const res = await adminFetch(te, "POST", "/internal/users", {
      headers: { "x-client-cert-subject": "CN=ops" },
      body: { external_id: "e1", provider: "idp", email: "a@example.com" },
    });
    assert.equal(res.status, 201);
    await res.body?.cancel();
    const audit = lines.find((l) => l.action === "user.create");
    assert.equal(audit?.auth, order[0]);
    assert.equal(audit?.operator, order[0] === "mtls" ? "CN=ops" : "shared-secret");
  }
});

Deno.test("lockout: past the threshold a peer gets 429 slow_down with Retry-After, even with the right secret, until the window passes", async () => {
  const clock = new FixedClock(T0);
  await using te = await startTokenServer({
    clock,
    toml: internalToml(`[internal_api.lockout]\nthreshold = 3\nwindow = "60s"\n`),
  });
  const bad = { headers: bearer("w".repeat(32)) };
  // Successes do not consume the budget.
  for (let i = 0; i < 5; i++) {
    assert.equal(await status(adminFetch(te, "GET", "/internal/stats")), 200);
  }
  for (let i = 0; i < 3; i++) {
    assert.equal(await status(adminFetch(te, "GET", "/internal/stats", bad)), 401);
    clock.advance(1000);
  }
  const locked = await adminFetch(te, "GET", "/internal/stats");
  assert.equal(locked.status, 429);
  // Locked at the third failure (T0 + 2 s) for 60 s; now is T0 + 3 s.
  assert.equal(locked.headers.get("retry-after"), "59");
  assert.deepEqual((await locked.json()).error, "slow_down");
  clock.advance(58_000);
  assert.equal(await status(adminFetch(te, "GET", "/internal/stats")), 429);
  clock.advance(1000);
  assert.equal(await status(adminFetch(te, "GET", "/internal/stats")), 200);
  // A fresh window: failures count from one again.
  assert.equal(await status(adminFetch(te, "GET", "/internal/stats", bad)), 401);
  assert.equal(await status(adminFetch(te, "GET", "/internal/stats")), 200);
});

Deno.test("lockout: a locked-out peer does not lock out another (client address from a trusted proxy header)", async () => {
  const clock = new FixedClock(T0);
  await using te = await startTokenServer({
    clock,
    toml: internalToml(
      `client_ip_header = "x-forwarded-for"\n[internal_api.mtls]\ntrusted_proxies = ["127.0.0.1"]\n` +
        `[internal_api.lockout]\nthreshold = 2\nwindow = "5m"\n`,
    ),
  });
  const from = (ip: string, auth = SECRET) => ({
    headers: { "x-forwarded-for": `198.51.100.1, ${ip}`, ...bearer(auth) },
  });
  const bad = "b".repeat(32);
  assert.equal(
    await status(adminFetch(te, "GET", "/internal/stats", from("203.0.113.1", bad))),
    401,
  );
  assert.equal(
    await status(adminFetch(te, "GET", "/internal/stats", from("203.0.113.1", bad))),
    401,
  );
  const locked = await adminFetch(te, "GET", "/internal/stats", from("203.0.113.1"));
  assert.equal(locked.status, 429);
  assert.equal(locked.headers.get("retry-after"), "300");
  await locked.body?.cancel();
  assert.equal(await status(adminFetch(te, "GET", "/internal/stats", from("203.0.113.2"))), 200);
  assert.equal(
    await status(adminFetch(te, "GET", "/internal/stats", from("203.0.113.2", bad))),
    401,
  );
  assert.equal(await status(adminFetch(te, "GET", "/internal/stats", from("203.0.113.2"))), 200);
});

Deno.test("lockout: counted per socket peer address and shared through the store by every instance", async () => {
  const clock = new FixedClock(T0);
  const kv = await Deno.openKv(":memory:");
  try {
    const toml = internalToml(`[internal_api.lockout]\nthreshold = 2\n`);
    await using a = await startTokenServer({ clock, kv, toml });
    await using b = await startTokenServer({ clock, kv, toml });
    const handlerA = createInternalHandler(a.server.deps);
    const handlerB = createInternalHandler(b.server.deps);
    const call = async (h: typeof handlerA, peer: string, secret: string) => {
      const req = new Request("http://internal/internal/stats", { headers: bearer(secret) });
      const res = await h(req, { remoteAddr: { hostname: peer, port: 40000 } });
      await res.body?.cancel();
      return res.status;
    };
    const bad = "b".repeat(32);
    assert.equal(await call(handlerA, "192.0.2.7", bad), 401);
    assert.equal(await call(handlerB, "192.0.2.7", bad), 401);
    assert.equal(await call(handlerA, "192.0.2.7", SECRET), 429);
    assert.equal(await call(handlerB, "192.0.2.7", SECRET), 429);
    assert.equal(await call(handlerB, "192.0.2.8", SECRET), 200);
  } finally {
    kv.close();
  }
});

Deno.test("lockout: 50 parallel wrong secrets against threshold 3 are refused with at most 3 evaluated", async () => {
  await using te = await startTokenServer({
    toml: internalToml(`[internal_api.lockout]\nthreshold = 3\nwindow = "60s"\n`),
  });
  const bad = { headers: bearer("w".repeat(32)) };
  const statuses = await Promise.all(
    Array.from({ length: 50 }, () => status(adminFetch(te, "GET", "/internal/stats", bad))),
  );
  assert.equal(statuses.filter((s) => s === 401).length, 3);
  assert.equal(statuses.filter((s) => s === 429).length, 47);
  assert.equal(await status(adminFetch(te, "GET", "/internal/stats")), 429);
});

Deno.test("lockout: once accepted, a credential is not a guess: 20 parallel valid requests against threshold 3 all pass", async () => {
  await using te = await startTokenServer({
    toml: internalToml(`[internal_api.lockout]\nthreshold = 3\nwindow = "60s"\n`),
  });
  assert.equal(await status(adminFetch(te, "GET", "/internal/stats")), 200);
  const statuses = await Promise.all(
    Array.from({ length: 20 }, () => status(adminFetch(te, "GET", "/internal/stats"))),
  );
  assert.deepEqual(statuses, Array(20).fill(200));
  // Unknown credentials still spend the budget, and the lockout then refuses the known one too.
  const bad = { headers: bearer("w".repeat(32)) };
  for (let i = 0; i < 3; i++) {
    assert.equal(await status(adminFetch(te, "GET", "/internal/stats", bad)), 401);
  }
  assert.equal(await status(adminFetch(te, "GET", "/internal/stats")), 429);
});
