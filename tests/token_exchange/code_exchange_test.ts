import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { createMemoryLogger } from "@org/shared";
import { startOidcProvider } from "../support/oidc.ts";
import { providerToml, startTokenServer } from "../support/token_server.ts";

const REDIRECT = "https://app.example/cb";
const client: oauth.Client = { client_id: "app" };

async function discover(issuer: string): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  const res = await oauth.discoveryRequest(url, {
    algorithm: "oidc",
    [oauth.allowInsecureRequests]: true,
  });
  return await oauth.processDiscoveryResponse(url, res);
}

function exchange(
  as: oauth.AuthorizationServer,
  params: Record<string, string>,
): Promise<Response> {
  return oauth.genericTokenEndpointRequest(as, client, oauth.None(), "authorization_code", params, {
    [oauth.allowInsecureRequests]: true,
  });
}

function postForm(url: string, body: Record<string, string>): Promise<Response> {
  return fetch(`${url}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(body),
  });
}

/** Shapes the upstream ID token for one code exchange. */
function upstreamClaims(
  idp: Awaited<ReturnType<typeof startOidcProvider>>,
  claims: Record<string, unknown>,
): void {
  idp.server.service.on("beforeTokenSigning", (token: { payload: Record<string, unknown> }) => {
    if (token.payload.aud !== undefined) Object.assign(token.payload, claims);
  });
}

Deno.test("code exchange: a real client gets tokens that verify against /keys", async () => {
  await using idp = await startOidcProvider();
  upstreamClaims(idp, { sub: "alice-1", email: "alice@example.com", name: "Alice" });
  await using te = await startTokenServer({
    toml: providerToml("idp", idp.issuer) +
      `[token]\naudience = "api"\ncustom_claims = { tier = "free", org = "acme" }\n`,
  });
  const as = await discover(te.issuer);
  assert.equal(as.token_endpoint, `${te.issuer}/token`);
  const res = await exchange(as, { code: "c1", provider: "idp", redirect_uri: REDIRECT });
  const tokens = await oauth.processGenericTokenEndpointResponse(as, client, res);
  assert.equal(tokens.token_type, "bearer");
  assert.equal(tokens.expires_in, 900);
  assert.match(tokens.refresh_token!, /^[A-Za-z0-9_-]{43}$/);

  const jwks = createRemoteJWKSet(new URL(`${te.issuer}/keys`));
  const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, {
    issuer: te.issuer,
    audience: "api",
  });
  assert.equal(protectedHeader.alg, "EdDSA");
  assert.equal(protectedHeader.typ, "JWT");
  assert.equal(protectedHeader.kid, te.server.deps.keys.activeKid);
  assert.match(String(payload.sub), /^usr_[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.match(String(payload.sid), /^ses_[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.equal(payload.exp! - payload.iat!, 900);
  assert.equal(payload.tier, "free");
  assert.equal(payload.org, "acme");
  assert.ok(payload.jti);

  const user = await te.server.deps.store.users.get(String(payload.sub));
  assert.equal(user?.email, "alice@example.com");
  assert.equal(user?.display_name, "Alice");
  assert.equal(user?.external_id, "alice-1");
  assert.equal(user?.provider, "idp");
});

Deno.test("code exchange: the same upstream identity signs in as the same user, new session", async () => {
  await using idp = await startOidcProvider();
  upstreamClaims(idp, { sub: "bob", email: "bob@example.com" });
  await using te = await startTokenServer({ toml: providerToml("idp", idp.issuer) });
  const as = await discover(te.issuer);
  const subs = [];
  for (const code of ["a", "b"]) {
    const res = await exchange(as, { code, provider: "idp", redirect_uri: REDIRECT });
    const t = await oauth.processGenericTokenEndpointResponse(as, client, res);
    const { payload } = await jwtVerify(
      t.access_token,
      createRemoteJWKSet(new URL(`${te.issuer}/keys`)),
    );
    subs.push([payload.sub, payload.sid]);
  }
  assert.equal(subs[0]![0], subs[1]![0]);
  assert.notEqual(subs[0]![1], subs[1]![1]);
});

Deno.test("code exchange: per-user claims win over custom_claims; reserved names never change", async () => {
  await using idp = await startOidcProvider();
  upstreamClaims(idp, { sub: "carol", email: "carol@example.com" });
  await using te = await startTokenServer({
    toml: providerToml("idp", idp.issuer) + `[token]\ncustom_claims = { tier = "free" }\n`,
  });
  const first = await (await postForm(te.url, {
    grant_type: "authorization_code",
    code: "x",
    provider: "idp",
    redirect_uri: REDIRECT,
  })).json();
  const sub =
    JSON.parse(atob(first.access_token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")))
      .sub;
  await te.server.deps.store.users.update(sub, (u) => ({
    ...u,
    claims: { tier: "pro", iss: "https://evil.example", sid: "x" },
  }));
  const second = await (await postForm(te.url, {
    grant_type: "authorization_code",
    code: "y",
    provider: "idp",
    redirect_uri: REDIRECT,
  })).json();
  const { payload } = await jwtVerify(
    second.access_token,
    createRemoteJWKSet(new URL(`${te.issuer}/keys`)),
  );
  assert.equal(payload.tier, "pro");
  assert.equal(payload.iss, te.issuer);
  assert.match(String(payload.sid), /^ses_/);
});

Deno.test("code exchange: errors follow the spec table", async (t) => {
  await using idp = await startOidcProvider();
  const { log, lines } = createMemoryLogger();
  await using te = await startTokenServer({ toml: providerToml("idp", idp.issuer), log });
  const base = {
    grant_type: "authorization_code",
    code: "c",
    provider: "idp",
    redirect_uri: REDIRECT,
  };
  const expect = async (
    res: Response,
    status: number,
    error: string,
  ): Promise<Record<string, string>> => {
    const body = await res.json();
    assert.equal(res.status, status, JSON.stringify(body));
    assert.equal(body.error, error);
    assert.equal(typeof body.error_description, "string");
    return body;
  };

  await t.step("missing parameter → invalid_request", async () => {
    for (const key of ["code", "provider", "redirect_uri"]) {
      const { [key]: _, ...rest } = base as Record<string, string>;
      await expect(await postForm(te.url, rest), 400, "invalid_request");
    }
  });
  await t.step("unknown provider → invalid_request", async () => {
    await expect(await postForm(te.url, { ...base, provider: "nope" }), 400, "invalid_request");
  });
  await t.step("missing, empty or unknown grant_type → unsupported_grant_type", async () => {
    const { grant_type: _, ...noGrant } = base;
    await expect(await postForm(te.url, noGrant), 400, "unsupported_grant_type");
    await expect(
      await postForm(te.url, { ...base, grant_type: "" }),
      400,
      "unsupported_grant_type",
    );
    await expect(
      await postForm(te.url, { ...base, grant_type: "password" }),
      400,
      "unsupported_grant_type",
    );
    await expect(
      await postForm(te.url, { ...base, grant_type: "id_token" }),
      400,
      "unsupported_grant_type",
    );
  });
  await t.step("user-supplied values are echoed at most 64 characters long", async () => {
    const long = "z".repeat(3000);
    const clipped = `${"z".repeat(64)}…`;
    const grant = await expect(
      await postForm(te.url, { ...base, grant_type: long }),
      400,
      "unsupported_grant_type",
    );
    assert.equal(grant.error_description, `Unsupported grant_type ${clipped}`);
    const provider = await expect(
      await postForm(te.url, { ...base, provider: long }),
      400,
      "invalid_request",
    );
    assert.equal(provider.error_description, `Unknown provider ${clipped}`);
  });
  await t.step("an id_token field while the grant is off → unsupported_grant_type", async () => {
    await expect(
      await postForm(te.url, { ...base, id_token: "x.y.z" }),
      400,
      "unsupported_grant_type",
    );
  });
  await t.step("provider refuses the code → invalid_grant", async () => {
    idp.server.service.once("beforeResponse", (res: { statusCode: number; body: unknown }) => {
      res.statusCode = 400;
      res.body = { error: "invalid_grant", error_description: "code expired" };
    });
    await expect(await postForm(te.url, base), 400, "invalid_grant");
  });
  await t.step("provider failure → 502 server_error with a generic message", async () => {
    idp.server.service.once("beforeResponse", (res: { statusCode: number; body: unknown }) => {
      res.statusCode = 500;
      res.body = { error: "server_error", error_description: "SECRET-UPSTREAM-DETAIL" };
    });
    const body = await expect(await postForm(te.url, base), 502, "server_error");
    assert.equal(body.error_description, "The server could not complete the request");
    assert.ok(JSON.stringify(lines).includes("SECRET-UPSTREAM-DETAIL"));
  });
  await t.step("an ID token for another client → 502 server_error", async () => {
    const hook = (token: { payload: Record<string, unknown> }) => {
      if (token.payload.aud !== undefined) token.payload.aud = "someone-else";
    };
    idp.server.service.on("beforeTokenSigning", hook);
    const wrongAud = await startTokenServer({ toml: providerToml("idp", idp.issuer), log });
    try {
      await expect(await postForm(wrongAud.url, base), 502, "server_error");
    } finally {
      idp.server.service.off("beforeTokenSigning", hook);
      await wrongAud.close();
    }
  });
  await t.step("wrong content type, oversized body → clear JSON errors", async () => {
    const json = await fetch(`${te.url}/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(base),
    });
    await expect(json, 400, "invalid_request");
    const big = await postForm(te.url, { ...base, code: "x".repeat(70_000) });
    await expect(big, 413, "invalid_request");
  });
  await t.step("wrong method → 405 with Allow; unknown path → 404", async () => {
    const res = await fetch(`${te.url}/token`);
    assert.equal(res.headers.get("allow"), "POST");
    await expect(res, 405, "method_not_allowed");
    await expect(await fetch(`${te.url}/nope`), 404, "not_found");
    await expect(await fetch(`${te.url}/nonce`, { method: "POST" }), 404, "not_found");
  });
});

Deno.test("code exchange: registration policy refuses with access_denied", async (t) => {
  await using idp = await startOidcProvider();
  let claims: Record<string, unknown> = {};
  idp.server.service.on("beforeTokenSigning", (token: { payload: Record<string, unknown> }) => {
    if (token.payload.aud !== undefined) Object.assign(token.payload, claims);
  });
  const body = {
    grant_type: "authorization_code",
    code: "c",
    provider: "idp",
    redirect_uri: REDIRECT,
  };

  await t.step("existing_users_only refuses a new user", async () => {
    await using te = await startTokenServer({
      toml: providerToml("idp", idp.issuer) + `[registration]\nmode = "existing_users_only"\n`,
    });
    claims = { sub: "new-user", email: "n@example.com" };
    const res = await postForm(te.url, body);
    assert.equal(res.status, 403);
    assert.equal((await res.json()).error, "access_denied");
  });
  await t.step('domain allow-list: exact and wildcard, email_verified true or "true"', async () => {
    await using te = await startTokenServer({
      toml: providerToml("idp", idp.issuer) +
        `[registration]\ndomain_allowlist = ["example.com", "*.corp.example"]\n`,
    });
    for (
      const [email, status, verified] of [
        ["a@example.com", 200, true],
        ["b@eu.corp.example", 200, true],
        ["c@corp.example", 403, true],
        ["d@evil.com", 403, true],
        ["e@example.com", 403, undefined], // email_verified absent: not proof of the domain
        ["f@example.com", 200, "true"], // Apple sends the string form
        ["h@example.com", 403, "false"],
        ["g@example.com", 403, false],
      ] as const
    ) {
      claims = {
        sub: email,
        email,
        ...(verified === undefined ? {} : { email_verified: verified }),
      };
      const res = await postForm(te.url, body);
      assert.equal(res.status, status, email);
      await res.body?.cancel();
    }
  });
  await t.step("a suspended user is refused", async () => {
    await using te = await startTokenServer({ toml: providerToml("idp", idp.issuer) });
    claims = { sub: "sus", email: "s@example.com" };
    const ok = await postForm(te.url, body);
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    const user = await te.server.deps.store.users.findByExternalId("idp", "sus");
    await te.server.deps.store.users.update(user!.id, (u) => ({ ...u, status: "suspended" }));
    const res = await postForm(te.url, body);
    assert.equal(res.status, 403);
    assert.equal((await res.json()).error, "access_denied");
    assert.deepEqual((await te.server.deps.store.stats.read()).users, { active: 0, suspended: 1 });
  });
});

Deno.test("discovery: the eight spec fields and the DPoP algorithms, URLs from the issuer", async () => {
  await using te = await startTokenServer({ toml: `[server]\nissuer = "https://auth.example"\n` });
  const res = await fetch(`${te.url}/.well-known/openid-configuration`);
  const doc = await res.json();
  assert.deepEqual(doc, {
    issuer: "https://auth.example",
    jwks_uri: "https://auth.example/keys",
    token_endpoint: "https://auth.example/token",
    revocation_endpoint: "https://auth.example/revoke",
    grant_types_supported: ["authorization_code", "refresh_token"],
    response_types_supported: ["code"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["EdDSA"],
    dpop_signing_alg_values_supported: ["ES256", "ES384", "EdDSA", "Ed25519"],
  });
});

Deno.test("/keys and /health answer on embedded defaults", async () => {
  await using te = await startTokenServer();
  const keys = await fetch(`${te.url}/keys`);
  assert.match(keys.headers.get("cache-control")!, /max-age=(\d+)/);
  const jwks = await keys.json();
  assert.equal(jwks.keys.length, 1);
  assert.deepEqual(Object.keys(jwks.keys[0]).sort(), ["alg", "crv", "kid", "kty", "use", "x"]);
  assert.equal(jwks.keys[0].kty, "OKP");
  assert.equal(jwks.keys[0].crv, "Ed25519");
  assert.equal(jwks.keys[0].alg, "EdDSA");
  assert.equal(jwks.keys[0].use, "sig");
  const health = await fetch(`${te.url}/health`);
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { status: "ok", store: "ok" });
  void decodeProtectedHeader;
});

Deno.test("/health answers 503 when the store does not answer", async () => {
  const kv = await Deno.openKv(":memory:");
  await using te = await startTokenServer({ kv });
  kv.close();
  const res = await fetch(`${te.url}/health`);
  assert.equal(res.status, 503);
  assert.deepEqual(await res.json(), { status: "unavailable", store: "unavailable" });
});

Deno.test("code exchange: an ID token without email or name is completed from the provider's UserInfo", async (t) => {
  await using idp = await startOidcProvider();
  upstreamClaims(idp, { sub: "dave", email: undefined, name: undefined });
  const seen: (string | undefined)[] = [];
  let userinfo: { body: Record<string, unknown>; statusCode: number } = {
    body: { sub: "dave", email: "dave@example.com", email_verified: true, name: "Dave" },
    statusCode: 200,
  };
  idp.server.service.on(
    "beforeUserinfo",
    (res: typeof userinfo, req: { headers: Record<string, string | undefined> }) => {
      seen.push(req.headers.authorization);
      Object.assign(res, userinfo);
    },
  );
  const { log, lines } = createMemoryLogger();
  await using te = await startTokenServer({
    toml: providerToml("idp", idp.issuer) + `[registration]\ndomain_allowlist = ["example.com"]\n`,
    log,
  });
  const exchange = (code: string) =>
    postForm(te.url, {
      grant_type: "authorization_code",
      code,
      provider: "idp",
      redirect_uri: REDIRECT,
    });

  await t.step("a response for another subject is not used: the allow-list refuses", async () => {
    userinfo = { body: { sub: "mallory", email: "dave@example.com" }, statusCode: 200 };
    const res = await exchange("a");
    assert.equal(res.status, 403);
    assert.equal((await res.json()).error, "access_denied");
    assert.ok(lines.some((l) => l.msg === "provider userinfo names another subject; not used"));
  });
  await t.step("UserInfo refusing the access token → 502 server_error", async () => {
    userinfo = { body: {}, statusCode: 401 };
    const res = await exchange("b");
    assert.equal(res.status, 502);
    assert.equal((await res.json()).error, "server_error");
  });
  await t.step("the subject's email and name sign the user in", async () => {
    userinfo = {
      body: { sub: "dave", email: "dave@example.com", email_verified: true, name: "Dave" },
      statusCode: 200,
    };
    const res = await exchange("c");
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    const { payload } = await jwtVerify(
      body.access_token,
      createRemoteJWKSet(new URL(`${te.issuer}/keys`)),
    );
    const user = await te.server.deps.store.users.get(String(payload.sub));
    assert.equal(user?.email, "dave@example.com");
    assert.equal(user?.display_name, "Dave");
  });
  // Each request carried the access token of the provider's token response.
  assert.equal(seen.length, 3);
  for (const auth of seen) assert.match(auth ?? "", /^Bearer \S+$/);
});
