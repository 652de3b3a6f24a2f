import assert from "node:assert/strict";
import { resolveConfig } from "./resolve.ts";

function ok(raw: Record<string, unknown>, env: Record<string, string> = {}) {
  const r = resolveConfig(raw, env);
  if ("errors" in r) throw new Error(JSON.stringify(r.errors));
  return r.config;
}

Deno.test("resolveConfig() fills the spec defaults from an empty file", () => {
  const c = ok({});
  assert.equal(c.token.access_token_ttl, 900);
  assert.equal(c.token.refresh_token_ttl, 30 * 86400);
  assert.equal(c.token.refresh_rotation, true);
  assert.equal(c.token.refresh_grace, 10);
  assert.equal(c.grants.id_token, false);
  assert.equal(c.internal_api.host, "127.0.0.1");
  assert.equal(c.internal_api.port, 8081);
  assert.equal(c.server.host, "127.0.0.1");
  assert.equal(c.server.port, 8080);
  assert.equal(c.server.issuer, undefined);
  assert.equal(c.storage.kv_path, "./data/token-exchange.kv");
  assert.equal(c.rate_limit.enabled, true);
  assert.equal(c.rate_limit.requests, 1000);
  assert.equal(c.rate_limit.window, 60);
});

Deno.test("resolveConfig() returns every issue at once, each naming its key", () => {
  const r = resolveConfig({
    server: { port: "x", colour: "red" },
    token: { access_token_ttl: "soon", refresh_grace: "2m", custom_claims: { sub: "x" } },
    registration: { mode: "invite" },
    providers: { g: { issuer: "http://idp.example" } },
    extra: {},
    internal_api: { shared_secret: "${MISSING}" },
  }, {});
  assert.ok("errors" in r);
  const paths = r.errors.map((e) => e.path).sort();
  assert.deepEqual(paths, [
    "extra",
    "internal_api.shared_secret",
    "providers.g.client_id",
    "providers.g.client_secret",
    "providers.g.issuer",
    "registration.mode",
    "server.colour",
    "server.port",
    "token.access_token_ttl",
    "token.custom_claims.sub",
    "token.refresh_grace",
  ]);
  assert.match(r.errors.find((e) => e.path === "server.colour")!.message, /unknown key/);
});

Deno.test("resolveConfig() applies TOKEN_EXCHANGE__SECTION__KEY overrides with types", () => {
  const c = ok(
    { providers: { google: { issuer: "https://accounts.google.com", client_id: "a" } } },
    {
      TOKEN_EXCHANGE__SERVER__PORT: "9000",
      TOKEN_EXCHANGE__TOKEN__REFRESH_ROTATION: "false",
      TOKEN_EXCHANGE__REGISTRATION__DOMAIN_ALLOWLIST: "a.com, *.b.com",
      TOKEN_EXCHANGE__PROVIDERS__GOOGLE__CLIENT_SECRET: "s3cret",
    },
  );
  assert.equal(c.server.port, 9000);
  assert.equal(c.token.refresh_rotation, false);
  assert.deepEqual(c.registration.domain_allowlist, ["a.com", "*.b.com"]);
  assert.deepEqual(c.providers.google?.client_secret, { kind: "static", value: "s3cret" });
});

Deno.test("resolveConfig() reports an unknown key set from the environment", () => {
  const r = resolveConfig({}, { TOKEN_EXCHANGE__SERVER__PROT: "1" });
  assert.ok("errors" in r);
  assert.deepEqual(r.errors.map((e) => e.path), ["server.prot"]);
});

Deno.test("resolveConfig() replaces ${VAR} placeholders", () => {
  const c = ok({
    internal_api: {
      enabled: true,
      auth_methods: ["shared_secret"],
      shared_secret: "${SECRET}",
    },
  }, { SECRET: "x".repeat(32) });
  assert.equal(c.internal_api.shared_secret, "x".repeat(32));
});

Deno.test("resolveConfig() refuses plain http issuers except on loopback", () => {
  assert.ok("errors" in resolveConfig({ server: { issuer: "http://auth.example" } }, {}));
  assert.equal(
    ok({ server: { issuer: "http://127.0.0.1:8080/" } }).server.issuer,
    "http://127.0.0.1:8080",
  );
});

Deno.test("resolveConfig() caps refresh_grace at 60 seconds", () => {
  assert.equal(ok({ token: { refresh_grace: "60s" } }).token.refresh_grace, 60);
  assert.ok("errors" in resolveConfig({ token: { refresh_grace: "61s" } }, {}));
});

Deno.test("resolveConfig() accepts role admin with the internal API disabled", () => {
  const c = ok({ server: { role: "admin" }, internal_api: { enabled: false } });
  assert.equal(c.server.role, "admin");
  assert.equal(c.internal_api.enabled, false);
});

Deno.test("resolveConfig() checks the shared secret's length only when the internal API will accept it", () => {
  const internal = (enabled: boolean) => ({
    enabled,
    auth_methods: ["shared_secret"],
    shared_secret: "short",
  });
  // Listener off (disabled, or role public): the secret is never used, so it is not checked.
  ok({ server: { role: "admin" }, internal_api: internal(false) });
  ok({ server: { role: "all" }, internal_api: internal(false) });
  ok({ server: { role: "public" }, internal_api: internal(true) });
  for (const role of ["admin", "all"]) {
    const r = resolveConfig({ server: { role }, internal_api: internal(true) }, {});
    assert.ok("errors" in r);
    assert.deepEqual(r.errors.map((e) => e.path), ["internal_api.shared_secret"]);
  }
});

Deno.test("resolveConfig() reads bare integers as seconds for durations (TOML and environment)", () => {
  const c = ok({ token: { access_token_ttl: 600, refresh_grace: 0 }, rate_limit: { window: 30 } });
  assert.equal(c.token.access_token_ttl, 600);
  assert.equal(c.token.refresh_grace, 0);
  assert.equal(c.rate_limit.window, 30);
  assert.equal(
    ok({}, { TOKEN_EXCHANGE__TOKEN__ACCESS_TOKEN_TTL: "120" }).token.access_token_ttl,
    120,
  );
  for (const bad of [1.5, -1, 0]) {
    const r = resolveConfig({ token: { access_token_ttl: bad } }, {});
    assert.ok("errors" in r, String(bad));
    assert.deepEqual(r.errors.map((e) => e.path), ["token.access_token_ttl"]);
  }
  assert.ok("errors" in resolveConfig({ token: { refresh_grace: 61 } }, {}));
});

Deno.test("resolveConfig() explains that keys.kid needs keys.private_key_path", () => {
  const r = resolveConfig({ keys: { kid: "k1" } }, {});
  assert.ok("errors" in r);
  assert.deepEqual(r.errors.map((e) => e.path), ["keys.kid"]);
  assert.match(r.errors[0]!.message, /keys\.private_key_path.*not set.*remove keys\.kid/);
  assert.equal(ok({ keys: { kid: "k1", private_key_path: "k.pem" } }).keys.kid, "k1");
});

Deno.test("resolveConfig() takes trusted proxies as addresses or CIDR ranges, naming each bad one", () => {
  const ok = resolveConfig({
    rate_limit: { trusted_proxies: ["10.0.0.0/8", "2001:db8::/32", "127.0.0.1"] },
    internal_api: { mtls: { trusted_proxies: ["192.168.0.0/16"] } },
  }, {});
  assert.ok("config" in ok, JSON.stringify(ok));
  assert.deepEqual(ok.config.rate_limit.trusted_proxies, [
    "10.0.0.0/8",
    "2001:db8::/32",
    "127.0.0.1",
  ]);
  const bad = resolveConfig({
    rate_limit: { trusted_proxies: ["10.0.0.0/33", "lb.internal"] },
    internal_api: { mtls: { trusted_proxies: ["10.0.0"] } },
  }, {});
  assert.ok("errors" in bad);
  assert.deepEqual(bad.errors.map((e) => [e.path, e.message]), [
    [
      "internal_api.mtls.trusted_proxies",
      '"10.0.0" is not an IP address or CIDR range (like 10.0.0.0/8)',
    ],
    [
      "rate_limit.trusted_proxies",
      '"10.0.0.0/33" is not an IP address or CIDR range (like 10.0.0.0/8)',
    ],
    [
      "rate_limit.trusted_proxies",
      '"lb.internal" is not an IP address or CIDR range (like 10.0.0.0/8)',
    ],
  ]);
});

Deno.test("resolveConfig() compiles custom_claims templates and names the key of a bad one", () => {
  const c = ok({ token: { custom_claims: { tier: "free", role: "{{ user.metadata.role }}" } } });
  assert.deepEqual(c.token.custom_claims.literal, { tier: "free" });
  assert.deepEqual(c.token.custom_claims.templated.map(([k]) => k), ["role"]);

  const r = resolveConfig({
    token: { custom_claims: { role: "{{ user.role }}", org: { plan: "{{ user.claims.plan" } } },
  }, {});
  assert.ok("errors" in r);
  assert.deepEqual(r.errors.map((e) => e.path), [
    "token.custom_claims.role",
    "token.custom_claims.org.plan",
  ]);
  assert.match(r.errors[0]!.message, /unknown field user\.role/);

  const fromEnv = resolveConfig({}, {
    TOKEN_EXCHANGE__TOKEN__CUSTOM_CLAIMS: '{"plan":"{{ user.claims.plan | upcase }}"}',
  });
  assert.ok("errors" in fromEnv);
  assert.deepEqual(fromEnv.errors.map((e) => e.path), ["token.custom_claims.plan"]);
});

Deno.test("resolveConfig() reads [apple_client_secret] instead of client_secret", () => {
  const apple = { issuer: "https://appleid.apple.com", client_id: "com.example.web" };
  const c = ok({
    providers: {
      apple: {
        ...apple,
        apple_client_secret: { team_id: "T", key_id: "K", private_key: "${P8}" },
      },
    },
  }, { P8: "-----BEGIN PRIVATE KEY-----" });
  assert.deepEqual(c.providers.apple?.client_secret, {
    kind: "apple",
    team_id: "T",
    key_id: "K",
    private_key: { pem: "-----BEGIN PRIVATE KEY-----" },
  });

  const r = resolveConfig({
    providers: {
      a: { ...apple, apple_client_secret: { key_id: "K", private_key_path: "k.p8", x: 1 } },
      b: { ...apple, apple_client_secret: { team_id: "T", key_id: "K" } },
      c: { ...apple },
    },
  }, {});
  assert.ok("errors" in r);
  assert.deepEqual(r.errors.map((e) => e.path), [
    "providers.a.apple_client_secret.team_id",
    "providers.a.apple_client_secret.x",
    "providers.b.apple_client_secret.private_key_path",
    "providers.c.client_secret",
  ]);
});

Deno.test("resolveConfig() storage: a PostgreSQL URL, its password from the environment, a bounded pool", () => {
  const c = ok(
    { storage: { url: "postgres://te@db:5432/te?sslmode=verify-full" } },
    { TOKEN_EXCHANGE__STORAGE__PASSWORD: "p@ss/word" },
  );
  assert.equal(c.storage.url, "postgres://te@db:5432/te?sslmode=verify-full");
  assert.equal(c.storage.password, "p@ss/word");
  assert.equal(c.storage.pool_size, 10);
  assert.equal(c.storage.tls_ca_path, undefined);
  const r = resolveConfig({
    storage: { url: "mysql://db/te", pool_size: 0 },
  }, {});
  assert.ok("errors" in r);
  assert.deepEqual(r.errors.map((e) => e.path).sort(), ["storage.pool_size", "storage.url"]);
  const kv = resolveConfig({ storage: { password: "x", tls_ca_path: "ca.pem" } }, {});
  assert.ok("errors" in kv);
  assert.deepEqual(kv.errors.map((e) => e.path).sort(), [
    "storage.password",
    "storage.tls_ca_path",
  ]);
});

Deno.test("resolveConfig() server.cors_origins: off by default, origins kept in browser form", () => {
  assert.deepEqual(ok({}).server.cors_origins, []);
  assert.deepEqual(
    ok({
      server: {
        cors_origins: [
          "https://App.Example.com/",
          "https://app.example.com:443",
          "http://127.0.0.1:5173",
        ],
      },
    }).server.cors_origins,
    ["https://app.example.com", "http://127.0.0.1:5173"],
  );
  assert.deepEqual(
    ok({}, { TOKEN_EXCHANGE__SERVER__CORS_ORIGINS: "https://a.example,https://b.example" }).server
      .cors_origins,
    ["https://a.example", "https://b.example"],
  );
});

Deno.test("resolveConfig() server.cors_origins refuses wildcards, null, paths and plain http", () => {
  for (
    const bad of [
      "*",
      "https://*.example.com",
      "null",
      "app.example.com",
      "https://app.example.com/app",
      "https://app.example.com?x=1",
      "https://user@app.example.com",
      "http://app.example.com",
      "file:///index.html",
    ]
  ) {
    const r = resolveConfig({ server: { cors_origins: [bad] } }, {});
    assert.ok("errors" in r, bad);
    assert.deepEqual(r.errors.map((e) => e.path), ["server.cors_origins"], bad);
    assert.ok(r.errors[0]!.message.includes(bad), r.errors[0]!.message);
  }
});

Deno.test("resolveConfig() keeps audit records 90 days and deliveries 30 days unless told", () => {
  assert.equal(ok({}).audit.retention, 90 * 86400);
  assert.equal(ok({}).webhooks.retention, 30 * 86400);
  const c = ok({ audit: { retention: "180d" }, webhooks: { retention: "12h" } });
  assert.equal(c.audit.retention, 180 * 86400);
  assert.equal(c.webhooks.retention, 12 * 3600);
  assert.equal(ok({}, { TOKEN_EXCHANGE__AUDIT__RETENTION: "7d" }).audit.retention, 7 * 86400);
  const r = resolveConfig({ audit: { retention: "forever", keep: 1 } }, {});
  assert.ok("errors" in r);
  assert.deepEqual(r.errors.map((e) => e.path).sort(), ["audit.keep", "audit.retention"]);
});

Deno.test("resolveConfig() reports an unset ${VAR} once, not again as the empty key's own rule", () => {
  const r = resolveConfig({
    providers: {
      google: {
        issuer: "https://accounts.google.com",
        client_id: "x",
        client_secret: "${GOOGLE_CLIENT_SECRET}",
      },
    },
  }, {});
  assert.ok("errors" in r);
  assert.deepEqual(r.errors, [{
    path: "providers.google.client_secret",
    message: "environment variable GOOGLE_CLIENT_SECRET is not set",
  }]);
});
