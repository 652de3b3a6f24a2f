import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { decodeJwt } from "jose";
import { FixedClock } from "@org/shared";
import {
  adminFetch,
  adminJson,
  internalToml,
  SECRET,
  type SignInHarness,
  signInHarness,
} from "../support/internal_api.ts";

/** The resource server: a client of the introspection endpoint, authenticated as an operator. */
const rs: oauth.Client = { client_id: "resource-server" };
const operator: oauth.ClientAuth = (_as, _client, _body, headers) => {
  headers.set("authorization", `Bearer ${SECRET}`);
};

/** Introspects `token` the way a resource server using oauth4webapi does. */
async function introspect(
  h: SignInHarness,
  token: string,
  hint?: string,
): Promise<oauth.IntrospectionResponse> {
  const as: oauth.AuthorizationServer = {
    issuer: h.te.issuer,
    introspection_endpoint: `${h.te.internalUrl}/internal/introspect`,
  };
  const res = await oauth.introspectionRequest(as, rs, operator, token, {
    [oauth.allowInsecureRequests]: true,
    ...(hint === undefined ? {} : { additionalParameters: { token_type_hint: hint } }),
  });
  assert.equal(res.headers.get("cache-control"), "no-store");
  return await oauth.processIntrospectionResponse(as, rs, res);
}

const INACTIVE = { active: false };

Deno.test("introspect: live access and refresh tokens are active, with their session and user", async () => {
  await using h = await signInHarness({
    toml: internalToml() + `[token.custom_claims]\nscope = "read write"\n`,
  });
  const t = await h.tokens("ada");
  const claims = decodeJwt(t.access_token);

  const access = await introspect(h, t.access_token);
  assert.deepEqual(access, {
    active: true,
    sub: claims.sub,
    sid: claims.sid,
    exp: claims.exp,
    iat: claims.iat,
    iss: h.te.issuer,
    token_type: "Bearer",
    scope: "read write",
  });

  const refresh = await introspect(h, t.refresh_token);
  const family = await h.te.server.deps.store.sessions.getFamily(String(claims.sid));
  assert.deepEqual(refresh, {
    active: true,
    sub: claims.sub,
    sid: claims.sid,
    exp: Math.floor(family!.expires_at / 1000),
    iat: Math.floor(family!.created_at / 1000),
    iss: h.te.issuer,
    token_type: "refresh_token",
  });

  // The hint only decides the order: a wrong hint still finds the token.
  assert.equal((await introspect(h, t.access_token, "refresh_token")).active, true);
  assert.equal((await introspect(h, t.refresh_token, "access_token")).active, true);
});

Deno.test("introspect: an access token of a revoked session is inactive before it expires", async () => {
  await using h = await signInHarness({ toml: internalToml() });
  const t = await h.tokens("bob");
  const other = await h.tokens("bob"); // a second session of the same user
  assert.equal((await introspect(h, t.access_token)).active, true);
  const revoked = await fetch(`${h.te.url}/revoke`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: t.refresh_token }),
  });
  assert.equal(revoked.status, 200);
  await revoked.body?.cancel();
  assert.ok(decodeJwt(t.access_token).exp! * 1000 > Date.now(), "still within its exp");
  assert.deepEqual(await introspect(h, t.access_token), INACTIVE);
  assert.deepEqual(await introspect(h, t.refresh_token), INACTIVE);
  assert.equal((await introspect(h, other.access_token)).active, true, "other session untouched");
});

Deno.test("introspect: rotated, expired, foreign and garbage tokens are all just inactive", async () => {
  const clock = new FixedClock();
  await using h = await signInHarness({ toml: internalToml(), clock });
  const t = await h.tokens("carol");

  // Rotation: the presented refresh token is retired (even inside its grace window).
  const rotated = await (await h.refresh(t.refresh_token)).json();
  assert.deepEqual(await introspect(h, t.refresh_token), INACTIVE);
  assert.equal((await introspect(h, rotated.refresh_token)).active, true);

  // An operator token is signed by the same key but is no access token.
  const operatorToken = h.te.server.deps.keys.sign({
    iss: h.te.issuer,
    sub: "alice",
    sid: decodeJwt(t.access_token).sid,
    aud: "token-exchange-internal",
    iat: Math.floor(clock.now() / 1000),
    exp: Math.floor(clock.now() / 1000) + 60,
  }, "operator+jwt");
  for (
    const token of [
      operatorToken,
      "garbage",
      "a.b.c",
      "x".repeat(43), // refresh-token shaped, unknown
      `${t.access_token.slice(0, -4)}AAAA`, // signature broken
    ]
  ) {
    assert.deepEqual(await introspect(h, token), INACTIVE, token);
  }

  // Past its exp (900 s) an access token is inactive though its session lives on.
  clock.advance(901_000);
  assert.deepEqual(await introspect(h, rotated.access_token), INACTIVE);
  assert.equal((await introspect(h, rotated.refresh_token)).active, true);
});

Deno.test("introspect: a suspended user's tokens are inactive, and active again on reactivation", async () => {
  await using h = await signInHarness({ toml: internalToml() });
  const t = await h.tokens("dave");
  const id = String(decodeJwt(t.access_token).sub);
  await adminJson(h.te, "PATCH", `/internal/users/${id}`, 200, { body: { status: "suspended" } });
  assert.deepEqual(await introspect(h, t.access_token), INACTIVE);
  assert.deepEqual(await introspect(h, t.refresh_token), INACTIVE);
  await adminJson(h.te, "PATCH", `/internal/users/${id}`, 200, { body: { status: "active" } });
  assert.equal((await introspect(h, t.access_token)).active, true);
});

Deno.test("introspect: needs operator authentication and a form with token", async () => {
  await using h = await signInHarness({ toml: internalToml() });
  const t = await h.tokens("erin");
  const form = (body: Record<string, string>, headers: Record<string, string> = {}) =>
    adminFetch(h.te, "POST", "/internal/introspect", {
      raw: new URLSearchParams(body).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    });

  const stranger = await form({ token: t.access_token }, { authorization: "Bearer wrong" });
  assert.equal(stranger.status, 401);
  assert.equal((await stranger.json()).error, "unauthorized");

  const missing = await form({ token_type_hint: "access_token" });
  assert.equal(missing.status, 400);
  assert.deepEqual(await missing.json(), {
    error: "invalid_request",
    error_description: "Missing parameter token",
  });

  const empty = await form({ token: "" });
  assert.equal(empty.status, 200);
  assert.deepEqual(await empty.json(), INACTIVE);

  const json = await adminFetch(h.te, "POST", "/internal/introspect", {
    body: { token: t.access_token },
  });
  assert.equal(json.status, 400);
  assert.equal((await json.json()).error, "invalid_request");

  // The public listener has no such route.
  const pub = await fetch(`${h.te.url}/internal/introspect`, { method: "POST" });
  assert.equal(pub.status, 404);
  await pub.body?.cancel();
});

Deno.test("introspect: a refresh token this instance just rotated to is inactive once its session is revoked", async () => {
  await using h = await signInHarness({ toml: internalToml() });
  const t = await h.tokens("frank");
  // The rotation leaves this process remembering the successor's snapshot (a KV store fast
  // path for the next refresh); introspection must still see the revocation that follows.
  const rotated = await (await h.refresh(t.refresh_token)).json();
  assert.equal((await introspect(h, rotated.refresh_token)).active, true);
  const id = String(decodeJwt(t.access_token).sub);
  await adminJson(h.te, "PATCH", `/internal/users/${id}`, 200, { body: { status: "suspended" } });
  assert.deepEqual(await introspect(h, rotated.refresh_token), INACTIVE);
  await adminJson(h.te, "PATCH", `/internal/users/${id}`, 200, { body: { status: "active" } });
  const revoked = await fetch(`${h.te.url}/revoke`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: rotated.access_token }),
  });
  assert.equal(revoked.status, 200);
  await revoked.body?.cancel();
  assert.deepEqual(await introspect(h, rotated.refresh_token), INACTIVE);
});
