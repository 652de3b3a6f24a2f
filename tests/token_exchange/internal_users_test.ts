import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { createMemoryLogger, FixedClock, seededRandom } from "@org/shared";
import { createIdFactory } from "../../server/store/ids.ts";
import type { UserRecord } from "../../server/store/users.ts";
import { startTokenServer } from "../support/token_server.ts";
import {
  adminFetch,
  adminJson,
  internalToml,
  type SignInHarness,
  signInHarness,
} from "../support/internal_api.ts";

type User = Record<string, unknown> & { id: string; status: string };
const newUser = (n: string) => ({
  external_id: `ext-${n}`,
  provider: "idp",
  email: `${n}@example.com`,
  display_name: `User ${n}`,
});

async function errorOf(res: Promise<Response>): Promise<[number, string, string]> {
  const r = await res;
  const b = await r.json();
  return [r.status, b.error, b.error_description];
}

/** The user id behind upstream subject `sub` (provider `idp`). */
async function userIdOf(h: SignInHarness, sub: string): Promise<string> {
  const u = await h.te.server.deps.store.users.findByExternalId("idp", sub);
  assert.ok(u, `user for ${sub}`);
  return u.id;
}

/** OAuth error of a refused refresh, or "ok" with the new access token's claims. */
async function refreshOutcome(
  h: SignInHarness,
  token: string,
): Promise<{ error?: string; claims?: Record<string, unknown>; refresh_token?: string }> {
  const res = await h.refresh(token);
  const body = await res.json();
  if (res.status !== 200) return { error: `${res.status} ${body.error}` };
  return { claims: decodeJwt(body.access_token), refresh_token: body.refresh_token };
}

Deno.test("users: create answers 201 with the full user object; get, patch and the duplicate rule", async () => {
  await using te = await startTokenServer({ toml: internalToml() });
  const created = await adminJson<User>(te, "POST", "/internal/users", 201, { body: newUser("a") });
  assert.match(created.id, /^usr_[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.deepEqual(Object.keys(created).sort(), [
    "claims",
    "created_at",
    "display_name",
    "email",
    "external_id",
    "id",
    "metadata",
    "provider",
    "status",
    "updated_at",
  ]);
  assert.equal(created.status, "active");
  assert.deepEqual(created.metadata, {});
  assert.deepEqual(created.claims, {});
  assert.deepEqual(await adminJson(te, "GET", `/internal/users/${created.id}`, 200), created);

  const dup = await errorOf(adminFetch(te, "POST", "/internal/users", {
    body: { ...newUser("a"), email: "other@example.com" },
  }));
  assert.deepEqual(dup.slice(0, 2), [409, "conflict"]);
  // Same external_id at another provider is another user.
  await adminJson(te, "POST", "/internal/users", 201, {
    body: { ...newUser("a"), provider: "other" },
  });

  const patched = await adminJson<User>(te, "PATCH", `/internal/users/${created.id}`, 200, {
    body: { display_name: "Renamed", metadata: { team: "blue" } },
  });
  assert.equal(patched.display_name, "Renamed");
  assert.deepEqual(patched.metadata, { team: "blue" });
  assert.equal(patched.email, created.email);
  assert.equal(patched.status, "active");
  const onlyStatus = await adminJson<User>(te, "PATCH", `/internal/users/${created.id}`, 200, {
    body: { status: "suspended" },
  });
  assert.equal(onlyStatus.display_name, "Renamed");
  assert.deepEqual(onlyStatus.metadata, { team: "blue" });
  assert.equal(onlyStatus.status, "suspended");
});

Deno.test("users: bodies are validated: bad JSON, wrong types and unknown fields are 400 naming the field", async () => {
  await using te = await startTokenServer({ toml: internalToml() });
  const post = (options: { body?: unknown; raw?: string }) =>
    errorOf(adminFetch(te, "POST", "/internal/users", options));
  assert.deepEqual(await post({ raw: "{not json" }), [
    400,
    "invalid_request",
    "The request body is not valid JSON",
  ]);
  assert.deepEqual((await post({ raw: "[1]" })).slice(0, 2), [400, "invalid_request"]);
  assert.match(
    (await post({ body: { ...newUser("a"), email: 5 } }))[2],
    /"email" must be a string/,
  );
  assert.match(
    (await post({ body: { ...newUser("a"), admin: true } }))[2],
    /Unknown field "admin"/,
  );
  const { provider: _p, ...noProvider } = newUser("a");
  assert.match((await post({ body: noProvider }))[2], /"provider" is required/);
  assert.match((await post({ body: { ...newUser("a"), email: "nope" } }))[2], /"email"/);
  const u = await adminJson<User>(te, "POST", "/internal/users", 201, { body: newUser("b") });
  const patch = (body: unknown) =>
    errorOf(adminFetch(te, "PATCH", `/internal/users/${u.id}`, { body }));
  assert.match((await patch({ status: "banned" }))[2], /"status" must be one of/);
  assert.match((await patch({ email: "x@example.com" }))[2], /Unknown field "email"/);
  assert.match((await patch({ metadata: [1] }))[2], /"metadata" must be a JSON object/);
  assert.match((await patch({ display_name: 1 }))[2], /"display_name" must be a string/);
});

Deno.test("users: an unknown user is 404 not_found on every user route", async () => {
  await using te = await startTokenServer({ toml: internalToml() });
  const id = "usr_01J00000000000000000000000";
  for (
    const [method, path, body] of [
      ["GET", `/internal/users/${id}`, undefined],
      ["PATCH", `/internal/users/${id}`, { display_name: "x" }],
      ["DELETE", `/internal/users/${id}`, undefined],
      ["GET", `/internal/users/${id}/claims`, undefined],
      ["PUT", `/internal/users/${id}/claims`, { a: 1 }],
      ["PATCH", `/internal/users/${id}/claims`, { a: 1 }],
      ["DELETE", `/internal/users/${id}/claims`, undefined],
    ] as const
  ) {
    const [status, error] = await errorOf(adminFetch(te, method, path, { body }));
    assert.deepEqual([status, error], [404, "not_found"], `${method} ${path}`);
  }
});

Deno.test("users: an id that is not usr_<ULID> is 404 not_found on every user route, even a 3000-character one", async () => {
  await using te = await startTokenServer({ toml: internalToml() });
  const ids = [
    `usr_${"A".repeat(3000)}`, // over KV's key-size limit: once a 500 "Key too large"
    "usr_01j00000000000000000000000", // lower case
    "usr_01J0000000000000000000000I", // I is not Crockford base32
    "ses_01J00000000000000000000000",
    "usr_01J0000000000000000000000",
  ];
  for (const id of ids) {
    for (
      const [method, suffix, body] of [
        ["GET", "", undefined],
        ["PATCH", "", { display_name: "x" }],
        ["DELETE", "", undefined],
        ["GET", "/claims", undefined],
        ["PUT", "/claims", { a: 1 }],
        ["PATCH", "/claims", { a: 1 }],
        ["DELETE", "/claims", undefined],
      ] as const
    ) {
      const path = `/internal/users/${id}${suffix}`;
      const [status, error] = await errorOf(adminFetch(te, method, path, { body }));
      assert.deepEqual([status, error], [404, "not_found"], `${method} ${path.slice(0, 60)}`);
    }
  }
});

Deno.test("users: listing 500 users visits each exactly once with limit 1, 50, 200 and 500 (clamped to 200)", async () => {
  await using te = await startTokenServer({ toml: internalToml() });
  const clock = new FixedClock(Date.UTC(2030, 0, 1));
  const ids = createIdFactory(clock, seededRandom("users"));
  const want: string[] = [];
  for (let i = 0; i < 500; i++) {
    const user: UserRecord = {
      id: ids.next("usr"),
      provider: "idp",
      external_id: `e${i}`,
      email: `u${i}@example.com`,
      display_name: `u${i}`,
      status: "active",
      metadata: {},
      claims: {},
      created_at: clock.now(),
      updated_at: clock.now(),
    };
    assert.ok((await te.server.deps.store.users.create(user)).ok);
    want.push(user.id);
    if (i % 7 === 0) clock.advance(1);
  }
  for (const [limit, pageSize] of [[1, 1], [50, 50], [200, 200], [500, 200]] as const) {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
      const page: { users: User[]; next_cursor: string | null } = await adminJson(
        te,
        "GET",
        `/internal/users?limit=${limit}${q}`,
        200,
      );
      assert.ok(page.users.length <= pageSize);
      if (page.next_cursor !== null) assert.equal(page.users.length, pageSize);
      seen.push(...page.users.map((u) => u.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor !== null);
    assert.equal(pages, Math.ceil(500 / pageSize), `limit ${limit}`);
    assert.deepEqual(seen, want, `limit ${limit}: every user once, in creation order`);
  }
  const first = await adminJson<{ users: User[] }>(te, "GET", "/internal/users", 200);
  assert.equal(first.users.length, 50, "default limit");
  for (const bad of ["limit=0", "limit=-1", "limit=abc", "cursor=%2F%2F", "cursor=bm9wZQ"]) {
    const [status, error, why] = await errorOf(adminFetch(te, "GET", `/internal/users?${bad}`));
    assert.deepEqual([status, error], [400, "invalid_request"], bad);
    assert.match(why, /"(limit|cursor)"/);
  }
});

Deno.test("users: DELETE soft-deletes and revokes every session of that user only", async () => {
  await using h = await signInHarness({ toml: internalToml() });
  const alice1 = await h.tokens("alice");
  const alice2 = await h.tokens("alice");
  const bob = await h.tokens("bob");
  const aliceId = await userIdOf(h, "alice");
  const before = await adminJson(h.te, "GET", "/internal/stats", 200);
  assert.deepEqual(before, {
    users: { total: 2, active: 2, suspended: 0, Deleted: 0 },
    sessions: { live: 3 },
    provider_revocations: { pending: 0 },
  });
  const deleted = await adminJson<User>(h.te, "DELETE", `/internal/users/${aliceId}`, 200);
  assert.equal(deleted.status, "Deleted");
  assert.equal(
    (await adminJson<User>(h.te, "GET", `/internal/users/${aliceId}`, 200)).status,
    "Deleted",
  );
  assert.equal((await refreshOutcome(h, alice1.refresh_token)).error, "400 invalid_grant");
  assert.equal((await refreshOutcome(h, alice2.refresh_token)).error, "400 invalid_grant");
  assert.ok((await refreshOutcome(h, bob.refresh_token)).claims, "bob keeps his session");
  const signIn = await h.signIn("alice");
  assert.equal(signIn.status, 403);
  assert.equal((await signIn.json()).error, "access_denied");
  assert.deepEqual(await adminJson(h.te, "GET", "/internal/stats", 200), {
    users: { total: 2, active: 1, suspended: 0, Deleted: 1 },
    sessions: { live: 1 },
    provider_revocations: { pending: 0 },
  });
});

Deno.test("users: a suspended user gets access_denied on exchange and refresh; reactivation lets them sign in again", async () => {
  await using h = await signInHarness({ toml: internalToml() });
  const first = await h.tokens("carol");
  const unused = await h.tokens("carol");
  const id = await userIdOf(h, "carol");
  await adminJson(h.te, "PATCH", `/internal/users/${id}`, 200, { body: { status: "suspended" } });
  assert.equal((await refreshOutcome(h, first.refresh_token)).error, "403 access_denied");
  const denied = await h.signIn("carol");
  assert.equal(denied.status, 403);
  assert.equal((await denied.json()).error, "access_denied");
  await adminJson(h.te, "PATCH", `/internal/users/${id}`, 200, { body: { status: "active" } });
  assert.ok((await h.tokens("carol")).access_token);
  assert.ok((await refreshOutcome(h, unused.refresh_token)).claims, "an untouched session resumes");
  assert.equal(
    (await refreshOutcome(h, first.refresh_token)).error,
    "400 invalid_grant",
    "the session refused while suspended stays revoked",
  );
});

Deno.test("users: a Deleted user can be restored with PATCH status active", async () => {
  await using te = await startTokenServer({ toml: internalToml() });
  const u = await adminJson<User>(te, "POST", "/internal/users", 201, { body: newUser("d") });
  await adminJson(te, "DELETE", `/internal/users/${u.id}`, 200);
  const restored = await adminJson<User>(te, "PATCH", `/internal/users/${u.id}`, 200, {
    body: { status: "active" },
  });
  assert.equal(restored.status, "active");
  const stats = await adminJson<{ users: Record<string, number> }>(
    te,
    "GET",
    "/internal/stats",
    200,
  );
  assert.deepEqual(stats.users, { total: 1, active: 1, suspended: 0, Deleted: 0 });
});

Deno.test("claims: PUT, PATCH and DELETE show up in the next refreshed access token", async () => {
  await using h = await signInHarness({
    toml: internalToml() + `[token.custom_claims]\ntier = "free"\nregion = "eu"\n`,
  });
  let { refresh_token } = await h.tokens("dave");
  const id = await userIdOf(h, "dave");
  const next = async () => {
    const out = await refreshOutcome(h, refresh_token);
    assert.ok(out.claims && out.refresh_token, out.error);
    refresh_token = out.refresh_token;
    return out.claims;
  };
  const put = await adminJson(h.te, "PUT", `/internal/users/${id}/claims`, 200, {
    body: { tier: "pro", roles: ["admin"], org: "acme" },
  });
  assert.deepEqual(put, { tier: "pro", roles: ["admin"], org: "acme" });
  let c = await next();
  assert.deepEqual([c.tier, c.roles, c.org, c.region], ["pro", ["admin"], "acme", "eu"]);

  const merged = await adminJson(h.te, "PATCH", `/internal/users/${id}/claims`, 200, {
    body: { org: null, team: "core" },
  });
  assert.deepEqual(merged, { tier: "pro", roles: ["admin"], team: "core" });
  c = await next();
  assert.deepEqual([c.tier, c.org, c.team], ["pro", undefined, "core"]);
  assert.deepEqual(await adminJson(h.te, "GET", `/internal/users/${id}/claims`, 200), merged);
  assert.deepEqual(
    (await adminJson<User>(h.te, "GET", `/internal/users/${id}`, 200)).claims,
    merged,
  );

  assert.deepEqual(await adminJson(h.te, "DELETE", `/internal/users/${id}/claims`, 200), {});
  c = await next();
  assert.deepEqual([c.tier, c.roles, c.team, c.region], ["free", undefined, undefined, "eu"]);
});

Deno.test("claims: must be a JSON object without reserved JWT names and within the size cap", async () => {
  await using te = await startTokenServer({ toml: internalToml() });
  const u = await adminJson<User>(te, "POST", "/internal/users", 201, { body: newUser("e") });
  const path = `/internal/users/${u.id}/claims`;
  for (const method of ["PUT", "PATCH"]) {
    for (
      const [body, why] of [
        [["a"], /JSON object/],
        ["text", /JSON object/],
        [{ sub: "usr_other" }, /"sub" is a reserved JWT claim/],
        [{ exp: 1 }, /"exp" is a reserved JWT claim/],
        [{ big: "x".repeat(9000) }, /must not exceed 8192 bytes/],
      ] as const
    ) {
      const [status, error, description] = await errorOf(adminFetch(te, method, path, { body }));
      assert.deepEqual(
        [status, error],
        [400, "invalid_request"],
        `${method} ${JSON.stringify(body).slice(0, 30)}`,
      );
      assert.match(description, why);
    }
  }
  // Keys naming object internals are refused on PUT and PATCH, naming the key (raw JSON: an
  // object literal's __proto__ would set the prototype instead of a key).
  for (const method of ["PUT", "PATCH"]) {
    for (const name of ["__proto__", "constructor", "prototype"]) {
      const raw = `{"${name}": {"isAdmin": true}}`;
      const [status, error, description] = await errorOf(adminFetch(te, method, path, { raw }));
      assert.deepEqual([status, error], [400, "invalid_request"], `${method} ${name}`);
      assert.match(description, new RegExp(`"${name}"`));
    }
  }
  // null removes a claim only in a merge; a replacement with null is refused, naming the claim.
  const [nullStatus, , nullWhy] = await errorOf(
    adminFetch(te, "PUT", path, { body: { a: 1, gone: null } }),
  );
  assert.equal(nullStatus, 400);
  assert.match(nullWhy, /"gone"/);
  await adminJson(te, "PUT", path, 200, { body: { a: 1, b: 2 } });
  assert.deepEqual(await adminJson(te, "PATCH", path, 200, { body: { b: null } }), { a: 1 });
  // A merge may not grow the map past the cap either.
  await adminJson(te, "PUT", path, 200, { body: { a: "x".repeat(5000) } });
  const [status] = await errorOf(adminFetch(te, "PATCH", path, { body: { b: "y".repeat(5000) } }));
  assert.equal(status, 400);
  assert.deepEqual(Object.keys(await adminJson(te, "GET", path, 200)), ["a"]);
});

Deno.test("sessions cleanup: deletes expired sessions, answers {deleted}, and the live count follows", async () => {
  const clock = new FixedClock(Date.UTC(2030, 0, 1));
  await using te = await startTokenServer({ clock, toml: internalToml() });
  const { sessions } = te.server.deps.store;
  const family = (id: string, ttl: number) => ({
    id,
    user_id: "usr_x",
    created_at: clock.now(),
    expires_at: clock.now() + ttl,
    revoked: false,
  });
  const record = (hash: string, f: ReturnType<typeof family>) => ({
    hash,
    family_id: f.id,
    user_id: f.user_id,
    issued_at: clock.now(),
    expires_at: f.expires_at,
  });
  for (
    const [id, ttl] of [["ses_a", 1000], ["ses_b", 1000], ["ses_c", 1000], [
      "ses_live",
      60_000,
    ]] as const
  ) {
    const f = family(id, ttl);
    await sessions.create(f, record(`h_${id}`, f));
  }
  await sessions.revokeFamily("ses_c", clock.now());
  assert.deepEqual((await adminJson(te, "GET", "/internal/stats", 200)).sessions, { live: 3 });
  assert.deepEqual(await adminJson(te, "POST", "/internal/sessions/cleanup", 200), { deleted: 0 });
  clock.advance(1000);
  assert.deepEqual(await adminJson(te, "POST", "/internal/sessions/cleanup", 200), { deleted: 3 });
  assert.deepEqual((await adminJson(te, "GET", "/internal/stats", 200)).sessions, { live: 1 });
  assert.deepEqual(await sessions.familiesOfUser("usr_x"), ["ses_live"]);
  assert.equal(await sessions.getRefresh("h_ses_a"), undefined);
  assert.ok(await sessions.getRefresh("h_ses_live"));
  assert.deepEqual(await adminJson(te, "POST", "/internal/sessions/cleanup", 200), { deleted: 0 });
});

Deno.test("sessions: the served process sweeps expired sessions itself on its schedule, so the live count drops without a cleanup call", async () => {
  const clock = new FixedClock(Date.UTC(2030, 0, 1));
  let task: (() => void) | undefined;
  let stopped = false;
  const scheduler = {
    every(_ms: number, t: () => void) {
      task = t;
      return () => {
        stopped = true;
      };
    },
  };
  const { log, lines } = createMemoryLogger();
  const te = await startTokenServer({ clock, scheduler, log, toml: internalToml() });
  try {
    const { sessions } = te.server.deps.store;
    const f = {
      id: "ses_a",
      user_id: "usr_x",
      created_at: clock.now(),
      expires_at: clock.now() + 1000,
      revoked: false,
    };
    await sessions.create(f, {
      hash: "h_a",
      family_id: f.id,
      user_id: f.user_id,
      issued_at: clock.now(),
      expires_at: f.expires_at,
    });
    assert.deepEqual((await adminJson(te, "GET", "/internal/stats", 200)).sessions, { live: 1 });
    clock.advance(1000);
    assert.ok(task, "serve scheduled a sweep");
    task();
  } finally {
    await te.close(); // waits for the sweep in progress
  }
  assert.equal(stopped, true, "the schedule is cleared on shutdown");
  const swept = lines.find((l) => l.msg === "expired sessions swept");
  assert.deepEqual([swept?.level, swept?.deleted], ["info", 1]);
});

Deno.test("metrics: Prometheus text with requests by route and status, issuance by grant, reuse and lockouts", async () => {
  const clock = new FixedClock(Date.now());
  await using h = await signInHarness({
    toml: internalToml(`[internal_api.lockout]\nthreshold = 1\n`) +
      `[token]\nrefresh_grace = "0s"\n`,
    clock,
  });
  const t = await h.tokens("erin");
  const r = await refreshOutcome(h, t.refresh_token);
  assert.ok(r.refresh_token);
  // Past the (zero) grace window for sure: on the real clock a fast retry could land in the
  // same millisecond as the rotation, which counts as inside it.
  clock.advance(1);
  assert.equal((await refreshOutcome(h, t.refresh_token)).error, "400 invalid_grant");
  await (await fetch(`${h.te.url}/health`)).body?.cancel();
  const res = await adminFetch(h.te, "GET", "/internal/metrics");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const has = (line: string) =>
    assert.ok(text.split("\n").includes(line), `missing: ${line}\n${text}`);
  has(
    'token_exchange_http_requests_total{listener="public",method="GET",route="/health",status="200"} 1',
  );
  has(
    'token_exchange_http_requests_total{listener="public",method="POST",route="/token",status="200"} 2',
  );
  has(
    'token_exchange_http_requests_total{listener="public",method="POST",route="/token",status="400"} 1',
  );
  has('token_exchange_tokens_issued_total{grant="authorization_code"} 1');
  has('token_exchange_tokens_issued_total{grant="refresh_token"} 1');
  has("token_exchange_refresh_reuse_detected_total 1");
  has(
    'token_exchange_http_request_duration_seconds_count{listener="public",method="POST",route="/token"} 3',
  );
  assert.match(
    text,
    /token_exchange_http_request_duration_seconds_bucket\{listener="public",method="POST",route="\/token",le="\+Inf"\} 3/,
  );
  has("# TYPE token_exchange_http_request_duration_seconds histogram");
  // With threshold 1, one failed authentication locks this peer out.
  const bad = await adminFetch(h.te, "GET", "/internal/stats", {
    headers: { authorization: "Bearer nope" },
  });
  assert.equal(bad.status, 401);
  await bad.body?.cancel();
  const metrics = h.te.server.deps.metrics.render();
  assert.ok(metrics.includes("token_exchange_operator_lockouts_total 1"));
  assert.ok(metrics.includes("token_exchange_operator_auth_failures_total 1"));
});

Deno.test("internal api: mutations write audit lines naming the operator, never the secret", async () => {
  const { log, lines } = createMemoryLogger();
  await using te = await startTokenServer({ log, toml: internalToml() });
  const u = await adminJson<User>(te, "POST", "/internal/users", 201, { body: newUser("f") });
  await adminJson(te, "DELETE", `/internal/users/${u.id}`, 200);
  const audit = lines.filter((l) => l.msg === "internal api");
  assert.deepEqual(audit.map((l) => l.action), ["user.create", "user.delete"]);
  assert.ok(audit.every((l) => l.operator === "shared-secret" && l.auth === "shared_secret"));
  assert.ok(!JSON.stringify(lines).includes("s3cret"));
});
