import assert from "node:assert/strict";
import { join } from "node:path";
import * as oauth from "oauth4webapi";
import { decodeJwt } from "jose";
import { createMemoryLogger, FixedClock, type Logger } from "@org/shared";
import { refreshTokenGrant } from "../../server/grants/refresh_token.ts";
import { createIdFactory } from "../../server/store/ids.ts";
import { createKvStore } from "../../server/store/kv_store.ts";
import type { RefreshRecord } from "../../server/store/sessions.ts";
import { type OidcFixture, startOidcProvider } from "../support/oidc.ts";
import {
  providerToml,
  startTokenServer,
  type TokenServer,
  type TokenServerOptions,
} from "../support/token_server.ts";

const client: oauth.Client = { client_id: "app" };
const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** A token service with one provider whose next sign-in is as `as(sub)`. */
interface Harness extends AsyncDisposable {
  readonly te: TokenServer;
  readonly as: oauth.AuthorizationServer;
  /** Code exchange as upstream subject `sub`: a new session. */
  signIn(sub: string): Promise<{ access_token: string; refresh_token: string }>;
  refresh(token: string): Promise<Response>;
}

async function harness(
  options: Omit<TokenServerOptions, "toml"> & { toml?: string; idp?: OidcFixture } = {},
): Promise<Harness> {
  const idp = options.idp ?? await startOidcProvider();
  let sub = "";
  idp.server.service.on("beforeTokenSigning", (t: { payload: Record<string, unknown> }) => {
    if (t.payload.aud !== undefined) Object.assign(t.payload, { sub, email: `${sub}@example.com` });
  });
  const te = await startTokenServer({
    ...options,
    toml: providerToml("idp", idp.issuer) + (options.toml ?? ""),
  });
  const url = new URL(te.issuer);
  const as = await oauth.processDiscoveryResponse(
    url,
    await oauth.discoveryRequest(url, { algorithm: "oidc", ...insecure }),
  );
  const close = async () => {
    await te.close();
    if (!options.idp) await idp.close();
  };
  return {
    te,
    as,
    async signIn(s) {
      sub = s;
      const res = await oauth.genericTokenEndpointRequest(
        as,
        client,
        oauth.None(),
        "authorization_code",
        { code: `code-${s}`, provider: "idp", redirect_uri: "https://app.example/cb" },
        insecure,
      );
      const t = await oauth.processGenericTokenEndpointResponse(as, client, res);
      return { access_token: t.access_token, refresh_token: t.refresh_token! };
    },
    refresh: (token) => oauth.refreshTokenGrantRequest(as, client, oauth.None(), token, insecure),
    [Symbol.asyncDispose]: close,
  };
}

async function refreshed(h: Harness, token: string): Promise<oauth.TokenEndpointResponse> {
  return await oauth.processRefreshTokenResponse(h.as, client, await h.refresh(token));
}

/** The OAuth error code of a refused refresh. */
async function refusal(h: Harness, token: string): Promise<string> {
  const res = await h.refresh(token);
  try {
    await oauth.processRefreshTokenResponse(h.as, client, res);
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError) return `${err.status} ${err.error}`;
    throw err;
  }
  return "200 ok";
}

async function revoke(h: Harness, token: string, hint?: string): Promise<Response> {
  return await oauth.revocationRequest(h.as, client, oauth.None(), token, {
    ...insecure,
    ...(hint ? { additionalParameters: { token_type_hint: hint } } : {}),
  });
}

async function liveRecordsOf(kv: Deno.Kv, family: string): Promise<RefreshRecord[]> {
  const out: RefreshRecord[] = [];
  for await (const e of kv.list<RefreshRecord>({ prefix: ["refresh"] })) {
    if (e.value.family_id === family && e.value.retired_at === undefined) out.push(e.value);
  }
  return out;
}

const sid = (jwt: string) => String(decodeJwt(jwt).sid);

Deno.test("refresh: with rotation on, the token is retired and a new one returned", async () => {
  await using h = await harness();
  const first = await h.signIn("alice");
  const second = await refreshed(h, first.refresh_token);
  assert.equal(second.token_type, "bearer");
  assert.equal(second.expires_in, 900);
  assert.match(second.refresh_token!, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(second.refresh_token, first.refresh_token);
  assert.equal(sid(second.access_token), sid(first.access_token));
  assert.equal(decodeJwt(second.access_token).sub, decodeJwt(first.access_token).sub);
  assert.notEqual(decodeJwt(second.access_token).jti, decodeJwt(first.access_token).jti);
  const third = await refreshed(h, second.refresh_token!);
  assert.notEqual(third.refresh_token, second.refresh_token);
  assert.equal((await liveRecordsOf(h.te.kv, sid(first.access_token))).length, 1);
});

Deno.test("refresh: with rotation off, no refresh_token is returned and the token stays valid", async () => {
  await using h = await harness({ toml: `[token]\nrefresh_rotation = false\n` });
  const first = await h.signIn("alice");
  for (let i = 0; i < 3; i++) {
    const res = await h.refresh(first.refresh_token);
    const body = await res.clone().json();
    assert.equal(res.status, 200);
    assert.ok(!("refresh_token" in body));
    const t = await oauth.processRefreshTokenResponse(h.as, client, res);
    assert.equal(sid(t.access_token), sid(first.access_token));
  }
});

Deno.test("refresh: a retry inside the grace window gets the identical successor", async () => {
  const clock = new FixedClock();
  await using h = await harness({ clock });
  const first = await h.signIn("alice");
  const a = await refreshed(h, first.refresh_token);
  clock.advance(9_000);
  const b = await refreshed(h, first.refresh_token);
  assert.equal(b.refresh_token, a.refresh_token);
  assert.notEqual(decodeJwt(b.access_token).jti, decodeJwt(a.access_token).jti);
  // The successor is still the one live token of the family.
  const c = await refreshed(h, a.refresh_token!);
  assert.notEqual(c.refresh_token, a.refresh_token);
});

Deno.test("refresh: reuse outside grace revokes the whole family; the user's other session works", async () => {
  const clock = new FixedClock();
  const { log, lines } = createMemoryLogger();
  await using h = await harness({ clock, log });
  const stolen = await h.signIn("alice");
  const other = await h.signIn("alice");
  const next = await refreshed(h, stolen.refresh_token);
  clock.advance(10_001);
  assert.equal(await refusal(h, stolen.refresh_token), "400 invalid_grant");
  // The legitimate holder's successor dies with the family.
  assert.equal(await refusal(h, next.refresh_token!), "400 invalid_grant");
  const still = await refreshed(h, other.refresh_token);
  assert.equal(sid(still.access_token), sid(other.access_token));

  const audit = lines.find((l) => String(l.msg).includes("reuse"));
  assert.ok(audit, JSON.stringify(lines));
  assert.equal(audit.family, sid(stolen.access_token));
  assert.equal(audit.user, decodeJwt(stolen.access_token).sub);
  assert.equal(audit.reason, "outside_grace");
  const logged = JSON.stringify(lines);
  for (const t of [stolen.refresh_token, next.refresh_token!]) assert.ok(!logged.includes(t));
});

Deno.test("refresh: a token older than the immediate predecessor is reuse even inside grace", async () => {
  const clock = new FixedClock();
  await using h = await harness({ clock });
  const t0 = await h.signIn("alice");
  const t1 = await refreshed(h, t0.refresh_token);
  const t2 = await refreshed(h, t1.refresh_token!);
  clock.advance(1_000);
  assert.equal(await refusal(h, t0.refresh_token), "400 invalid_grant");
  assert.equal(await refusal(h, t2.refresh_token!), "400 invalid_grant");
});

Deno.test("refresh: 50 parallel refreshes of one token end with exactly one live successor", async () => {
  await using h = await harness();
  const first = await h.signIn("alice");
  const responses = await Promise.all(
    Array.from({ length: 50 }, () => h.refresh(first.refresh_token)),
  );
  const statuses = responses.map((r) => r.status);
  assert.deepEqual(statuses.filter((s) => s >= 500), []);
  const bodies = await Promise.all(responses.map((r) => r.json()));
  assert.deepEqual(statuses, Array(50).fill(200), JSON.stringify(bodies.slice(0, 3)));
  const successors = new Set(bodies.map((b) => b.refresh_token));
  assert.equal(successors.size, 1);
  const live = await liveRecordsOf(h.te.kv, sid(first.access_token));
  assert.equal(live.length, 1);
  await refreshed(h, [...successors][0]);
});

Deno.test("refresh: a suspended user gets access_denied and the session is revoked", async () => {
  await using h = await harness();
  const t = await h.signIn("alice");
  const users = h.te.server.deps.store.users;
  const id = String(decodeJwt(t.access_token).sub);
  await users.update(id, (u) => ({ ...u, status: "suspended" }));
  assert.equal(await refusal(h, t.refresh_token), "403 access_denied");
  await users.update(id, (u) => ({ ...u, status: "active" }));
  assert.equal(await refusal(h, t.refresh_token), "400 invalid_grant");
});

Deno.test("refresh: claims are re-read, so a claims change shows on the next refresh", async () => {
  await using h = await harness({ toml: `[token]\ncustom_claims = { tier = "free" }\n` });
  const t = await h.signIn("alice");
  assert.equal(decodeJwt(t.access_token).tier, "free");
  await h.te.server.deps.store.users.update(
    String(decodeJwt(t.access_token).sub),
    (u) => ({ ...u, claims: { tier: "pro" } }),
  );
  const next = await refreshed(h, t.refresh_token);
  assert.equal(decodeJwt(next.access_token).tier, "pro");
});

Deno.test("refresh: expiry follows the injected clock and refresh never extends the session", async () => {
  const clock = new FixedClock();
  await using h = await harness({ clock, toml: `[token]\nrefresh_token_ttl = "1h"\n` });
  const t = await h.signIn("alice");
  clock.advance(59 * 60_000);
  const late = await refreshed(h, t.refresh_token);
  clock.advance(60_000);
  assert.equal(await refusal(h, late.refresh_token!), "400 invalid_grant");
  assert.equal(await refusal(h, t.refresh_token), "400 invalid_grant");
});

Deno.test("refresh: garbage, unknown and missing tokens are refused with the spec codes", async () => {
  await using h = await harness();
  assert.equal(await refusal(h, "garbage"), "400 invalid_grant");
  assert.equal(await refusal(h, "A".repeat(43)), "400 invalid_grant");
  const res = await fetch(`${h.te.url}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=refresh_token",
  });
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error, "invalid_request");
});

Deno.test("revoke: a refresh token revokes its session only", async () => {
  await using h = await harness();
  const a = await h.signIn("alice");
  const b = await h.signIn("alice");
  const res = await revoke(h, a.refresh_token, "refresh_token");
  assert.equal(res.status, 200);
  assert.equal(await res.clone().text(), "");
  await oauth.processRevocationResponse(res);
  assert.equal(await refusal(h, a.refresh_token), "400 invalid_grant");
  await refreshed(h, b.refresh_token);
  // Again: already revoked is still 200.
  assert.equal((await revoke(h, a.refresh_token)).status, 200);
});

Deno.test("revoke: a JWT of ours typed operator+jwt is not an access token and revokes nothing", async () => {
  await using h = await harness();
  const a = await h.signIn("alice");
  const claims = decodeJwt(a.access_token);
  // Same key, same claims (sid included), only the header typ differs.
  const typed = h.te.server.deps.keys.sign(claims, "operator+jwt");
  const res = await revoke(h, typed, "access_token");
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "");
  await refreshed(h, a.refresh_token);
  // The same claims typed JWT do revoke: only the typ made the difference.
  await (await revoke(h, h.te.server.deps.keys.sign(claims), "access_token")).body?.cancel();
  assert.equal(await refusal(h, a.refresh_token), "400 invalid_grant");
});

Deno.test("revoke: an access token revokes the session named by its sid, even once expired", async () => {
  const clock = new FixedClock();
  await using h = await harness({ clock });
  const a = await h.signIn("alice");
  const b = await h.signIn("alice");
  clock.advance(901_000); // the access token has expired
  // The hint is only a hint: an access token sent as "refresh_token" is still understood.
  const res = await revoke(h, a.access_token, "refresh_token");
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "");
  assert.equal(await refusal(h, a.refresh_token), "400 invalid_grant");
  await refreshed(h, b.refresh_token);
});

Deno.test("revoke: garbage, unknown or forged tokens answer 200 and change nothing", async () => {
  await using h = await harness();
  const a = await h.signIn("alice");
  const forged = a.access_token.slice(0, -4) + (a.access_token.endsWith("AAAA") ? "BBBB" : "AAAA");
  for (const token of ["garbage", "A".repeat(43), "x.y.z", forged]) {
    for (const hint of [undefined, "access_token", "refresh_token", "other"]) {
      const res = await revoke(h, token, hint);
      assert.equal(res.status, 200, token);
      assert.equal(await res.text(), "");
    }
  }
  await refreshed(h, a.refresh_token);
  const missing = await fetch(`${h.te.url}/revoke`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "token_type_hint=access_token",
  });
  assert.equal(missing.status, 400);
  assert.equal((await missing.json()).error, "invalid_request");
});

Deno.test("revoke: an empty token= is an unknown token (200, empty body); an absent token parameter is 400 invalid_request", async () => {
  await using h = await harness();
  const post = (body: string) =>
    fetch(`${h.te.url}/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });
  for (const body of ["token=", "token=&token_type_hint=refresh_token", "token"]) {
    const res = await post(body);
    assert.equal(res.status, 200, body);
    assert.equal(await res.text(), "", body);
  }
  for (const body of ["", "token_type_hint=refresh_token"]) {
    const res = await post(body);
    assert.equal(res.status, 400, body);
    assert.deepEqual(await res.json(), {
      error: "invalid_request",
      error_description: "Missing parameter token",
    });
  }
});

Deno.test("refresh: a restart on the same KV file keeps every session", async () => {
  const dir = await Deno.makeTempDir({ prefix: "te-refresh-" });
  const path = join(dir, "te.kv");
  await using idp = await startOidcProvider();
  const tokens: string[] = [];
  {
    const kv = await Deno.openKv(path);
    try {
      await using h = await harness({ kv, idp });
      for (const who of ["alice", "bob", "alice"]) tokens.push((await h.signIn(who)).refresh_token);
      tokens[0] = (await refreshed(h, tokens[0]!)).refresh_token!;
    } finally {
      kv.close();
    }
  }
  const kv = await Deno.openKv(path);
  try {
    await using h = await harness({ kv, idp, log: quiet() });
    for (const t of tokens) await refreshed(h, t);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * A second service instance on the same KV (as with a shared remote store): its own store
 * objects, so nothing this server remembers is shared with it.
 */
function otherInstance(h: Harness, clock = h.te.server.deps.clock) {
  const deps = h.te.server.deps;
  const ctx = {
    ...deps,
    clock,
    store: createKvStore(h.te.kv, clock),
    ids: createIdFactory(clock, deps.random),
  };
  return {
    store: ctx.store,
    refresh: (token: string) =>
      refreshTokenGrant(new Map([["refresh_token", token]]), ctx).then((r) => r.refresh_token!),
  };
}

Deno.test("refresh: after a rotation here, changes made elsewhere are honoured on the next refresh", async (t) => {
  const clock = new FixedClock();
  await using h = await harness({
    clock,
    toml: `[token]
custom_claims = { tier = "free" }
`,
  });
  // Each token below was rotated by this server, so it decides on what it remembers and
  // relies on the commit's version checks to notice any change made through another store.
  const rotatedHere = async (who: string) =>
    (await refreshed(h, (await h.signIn(who)).refresh_token)).refresh_token!;
  const other = otherInstance(h);
  await t.step("claims changed elsewhere show up", async () => {
    const token = await rotatedHere("carol");
    const at = await refreshed(h, token);
    await other.store.users.update(String(decodeJwt(at.access_token).sub), (u) => ({
      ...u,
      claims: { tier: "pro" },
    }));
    assert.equal(decodeJwt((await refreshed(h, at.refresh_token!)).access_token).tier, "pro");
  });
  await t.step("a user suspended elsewhere gets access_denied", async () => {
    const token = await rotatedHere("dave");
    const at = await refreshed(h, token);
    await other.store.users.update(
      String(decodeJwt(at.access_token).sub),
      (u) => ({ ...u, status: "suspended" }),
    );
    assert.equal(await refusal(h, at.refresh_token!), "403 access_denied");
  });
  await t.step("a session revoked elsewhere is refused", async () => {
    const token = await rotatedHere("erin");
    const at = await refreshed(h, token);
    await other.store.sessions.revokeFamily(sid(at.access_token), clock.now());
    assert.equal(await refusal(h, at.refresh_token!), "400 invalid_grant");
  });
  await t.step("a token rotated elsewhere, presented here after grace, is reuse", async () => {
    const { log, lines } = createMemoryLogger();
    await using h2 = await harness({ clock, log });
    const token = (await refreshed(h2, (await h2.signIn("frank")).refresh_token)).refresh_token!;
    const successor = await otherInstance(h2).refresh(token);
    clock.advance(10_001);
    assert.equal(await refusal(h2, token), "400 invalid_grant");
    assert.ok(lines.some((l) => String(l.msg).includes("reuse")), JSON.stringify(lines));
    assert.equal(await refusal(h2, successor), "400 invalid_grant");
  });
  await t.step("a token rotated elsewhere, presented here inside grace, is a retry", async () => {
    const token = await rotatedHere("gina");
    const successor = await other.refresh(token);
    clock.advance(5_000);
    assert.equal((await refreshed(h, token)).refresh_token, successor);
  });
});

function quiet(): Logger {
  return createMemoryLogger().log;
}
