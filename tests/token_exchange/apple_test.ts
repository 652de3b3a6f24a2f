import assert from "node:assert/strict";
import { join } from "node:path";
import * as oauth from "oauth4webapi";
import {
  decodeProtectedHeader,
  exportPKCS8,
  generateKeyPair,
  jwtVerify,
  type KeyObject,
  SignJWT,
} from "jose";
import { createMemoryLogger, FixedClock } from "@org/shared";
import { consoleCsrf, consoleForm, consoleSession } from "../support/console.ts";
import { REVOKE_INTERVAL_MS } from "../../server/providers/apple_revocation.ts";
import { adminFetch, adminJson, SECRET } from "../support/internal_api.ts";
import { type OidcFixture, startOidcProvider } from "../support/oidc.ts";
import { stalledRequest } from "../support/stalled_request.ts";
import { storeBackends } from "../support/store_backends.ts";
import {
  spawnTokenServer,
  startTokenServer,
  testConfig,
  type TokenServer,
  type TokenServerOptions,
} from "../support/token_server.ts";

const TEAM = "TEAM123456";
const KEY_ID = "KEY1234567";
const SERVICES_ID = "com.example.web";
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const app: oauth.Client = { client_id: "app" };

/** What Apple's token endpoint received, per code exchange. */
interface AppleTokenRequest {
  readonly client_id: unknown;
  readonly client_secret: unknown;
  readonly authorization: string | undefined;
}

/** What Apple's `/auth/revoke` received, per call. */
interface AppleRevokeRequest {
  readonly client_id: unknown;
  readonly client_secret: unknown;
  readonly token: unknown;
  readonly token_type_hint: unknown;
}

/** The Apple fixture: the provider, and what its endpoints saw. */
interface AppleFixture extends OidcFixture {
  readonly requests: AppleTokenRequest[];
  /** The refresh tokens its token endpoint issued, in order. */
  readonly refreshTokens: string[];
  readonly revocations: AppleRevokeRequest[];
  /** Statuses the next calls of `/auth/revoke` answer (then 200, as Apple does on success). */
  readonly revokeFailures: number[];
}

/**
 * `oauth2-mock-server` behaving as Sign in with Apple does on the wire: its discovery lists
 * only `client_secret_post` and `revocation_endpoint` `<issuer>/auth/revoke`, its ID tokens
 * carry `email_verified` and `is_private_email` as the strings "true"/"false", and its code
 * exchange returns a refresh token. It records each token request's client credentials and
 * refresh token, and each revoke call's form; `/auth/revoke` answers 200 with an empty body
 * (or the statuses queued in `revokeFailures`, with Apple's JSON error body).
 */
async function startApple(claims: Record<string, unknown> = {}): Promise<AppleFixture> {
  const idp = await startOidcProvider("RS256");
  const requests: AppleTokenRequest[] = [];
  const refreshTokens: string[] = [];
  const revocations: AppleRevokeRequest[] = [];
  const revokeFailures: number[] = [];
  idp.server.service.on("beforeWellKnownOpenIdConfiguration", (res: { body: object }) => {
    Object.assign(res.body, {
      token_endpoint_auth_methods_supported: ["client_secret_post"],
      revocation_endpoint: `${idp.issuer}/auth/revoke`,
    });
  });
  idp.server.service.on(
    "beforeResponse",
    (
      res: { body: Record<string, unknown> },
      req: { body: Record<string, unknown>; headers: Record<string, string> },
    ) => {
      requests.push({
        client_id: req.body.client_id,
        client_secret: req.body.client_secret,
        authorization: req.headers.authorization,
      });
      if (typeof res.body.refresh_token === "string") refreshTokens.push(res.body.refresh_token);
    },
  );
  idp.server.service.addRoute("POST", "/auth/revoke", (req, res) => {
    const body = req.body as Record<string, unknown>;
    revocations.push({
      client_id: body.client_id,
      client_secret: body.client_secret,
      token: body.token,
      token_type_hint: body.token_type_hint,
    });
    const status = revokeFailures.shift() ?? 200;
    res.writeHead(status, status === 200 ? {} : { "content-type": "application/json" });
    res.end(status === 200 ? "" : JSON.stringify({ error: "temporarily_unavailable" }));
  });
  idp.server.service.on("beforeTokenSigning", (t: { payload: Record<string, unknown> }) => {
    if (t.payload.aud === undefined) return;
    Object.assign(t.payload, {
      sub: "001234.5d8a9c0b1e2f4a6b8c0d1e2f3a4b5c6d.1234",
      email: "x7qk2m9v4p@privaterelay.appleid.com",
      email_verified: "true",
      is_private_email: "true",
      auth_time: Math.floor(Date.now() / 1000),
      nonce_supported: true,
      ...claims,
    });
  });
  return Object.assign(idp, { requests, refreshTokens, revocations, revokeFailures });
}

function appleToml(issuer: string, key: string, extra = ""): string {
  return `[providers.apple]
issuer = "${issuer}"
client_id = "${SERVICES_ID}"
[providers.apple.apple_client_secret]
team_id = "${TEAM}"
key_id = "${KEY_ID}"
${key}
${extra}`;
}

async function teamKey(): Promise<{ pem: string; publicKey: CryptoKey | KeyObject }> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  return { pem: await exportPKCS8(privateKey), publicKey };
}

async function signIn(
  issuer: string,
  code: string,
  extra: Record<string, string> = {},
): Promise<Response> {
  const url = new URL(issuer);
  const as = await oauth.processDiscoveryResponse(
    url,
    await oauth.discoveryRequest(url, { algorithm: "oidc", ...insecure }),
  );
  return await oauth.genericTokenEndpointRequest(as, app, oauth.None(), "authorization_code", {
    code,
    provider: "apple",
    redirect_uri: "https://app.example/callback",
    ...extra,
  }, insecure);
}

/** Checks one recorded request: the secret is posted, and is the JWT Apple wants. */
async function assertAppleSecret(
  req: { client_id: unknown; client_secret: unknown; authorization?: string | undefined },
  publicKey: CryptoKey | KeyObject,
): Promise<void> {
  assert.equal(req.authorization, undefined, "client_secret_post: no Basic header");
  assert.equal(req.client_id, SERVICES_ID);
  assert.equal(typeof req.client_secret, "string");
  const secret = req.client_secret as string;
  assert.deepEqual(decodeProtectedHeader(secret), { alg: "ES256", kid: KEY_ID });
  const { payload } = await jwtVerify(secret, publicKey, {
    algorithms: ["ES256"],
    issuer: TEAM,
    subject: SERVICES_ID,
    audience: "https://appleid.apple.com",
  });
  assert.equal(payload.exp! - payload.iat!, 3600);
}

Deno.test("apple: a key file mints the client secret, posted and reused across sign-ins, never logged", async () => {
  await using apple = await startApple();
  const { pem, publicKey } = await teamKey();
  const dir = await Deno.makeTempDir({ prefix: "te-apple-" });
  const { log, lines } = createMemoryLogger();
  try {
    const keyFile = join(dir, `AuthKey_${KEY_ID}.p8`);
    await Deno.writeTextFile(keyFile, pem);
    await using te = await startTokenServer({
      toml: appleToml(apple.issuer, `private_key_path = "${keyFile}"`),
      log,
    });
    for (const code of ["c1", "c2"]) {
      const res = await signIn(te.issuer, code);
      assert.equal(res.status, 200, await res.clone().text());
      await res.body?.cancel();
    }
    assert.equal(apple.requests.length, 2);
    for (const req of apple.requests) await assertAppleSecret(req, publicKey);
    assert.equal(apple.requests[0]!.client_secret, apple.requests[1]!.client_secret, "cached");

    const user = await te.server.deps.store.users.findByExternalId(
      "apple",
      "001234.5d8a9c0b1e2f4a6b8c0d1e2f3a4b5c6d.1234",
    );
    assert.equal(user?.email, "x7qk2m9v4p@privaterelay.appleid.com");
    const logged = JSON.stringify(lines);
    assert.ok(logged.includes("code exchanged"), "the sign-ins were logged");
    assert.ok(!logged.includes(String(apple.requests[0]!.client_secret)), "secret never logged");
    const keyBody = pem.split("\n")[2]!; // a line of pure key material
    assert.ok(!logged.includes(keyBody), "key never logged");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("apple: serve under the deno task start permissions reads a key file beside its config", async () => {
  await using apple = await startApple();
  const { pem, publicKey } = await teamKey();
  const dir = await Deno.makeTempDir({ prefix: "te-apple-" });
  try {
    await Deno.writeTextFile(join(dir, `AuthKey_${KEY_ID}.p8`), pem);
    await using te = await spawnTokenServer({
      dir,
      // Port 0: a test never takes a fixed port (8080 may be anyone's on this machine).
      toml: `[server]\nport = 0\n` +
        appleToml(apple.issuer, `private_key_path = "AuthKey_${KEY_ID}.p8"`),
    });
    const res = await signIn(te.url, "c");
    assert.equal(res.status, 200, await res.clone().text());
    await res.body?.cancel();
    assert.equal(apple.requests.length, 1);
    await assertAppleSecret(apple.requests[0]!, publicKey);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("apple: the key may come from an environment variable, line breaks escaped or not", async () => {
  await using apple = await startApple();
  const { pem, publicKey } = await teamKey();
  for (const value of [pem, pem.trim().replaceAll("\n", "\\n")]) {
    const options: TokenServerOptions = {
      toml: appleToml(apple.issuer, `private_key = "\${APPLE_P8}"`),
      env: { APPLE_P8: value },
    };
    await using te = await startTokenServer(options);
    const res = await signIn(te.issuer, "c");
    assert.equal(res.status, 200, await res.clone().text());
    await res.body?.cancel();
  }
  for (const req of apple.requests) await assertAppleSecret(req, publicKey);
});

Deno.test("apple: a missing or wrong key stops the service at startup, naming the key", async () => {
  await using apple = await startApple();
  await assert.rejects(
    startTokenServer({ toml: appleToml(apple.issuer, `private_key_path = "/nonexistent/k.p8"`) }),
    /^Error: providers\.apple\.apple_client_secret\.private_key_path: cannot read \/nonexistent\/k\.p8/,
  );
  const rsa = await generateKeyPair("RS256", { extractable: true });
  await assert.rejects(
    startTokenServer({
      toml: appleToml(apple.issuer, `private_key = "\${APPLE_P8}"`),
      env: { APPLE_P8: await exportPKCS8(rsa.privateKey) },
    }),
    /providers\.apple\.apple_client_secret\.private_key is not a PKCS#8 EC P-256 private key/,
  );
  assert.throws(
    () =>
      testConfig(
        appleToml(apple.issuer, `private_key = "x"\nprivate_key_path = "k.p8"`) +
          `\n[providers.apple2]\nissuer = "${apple.issuer}"\nclient_id = "a"\n` +
          `client_secret = "s"\n[providers.apple2.apple_client_secret]\nteam_id = "T"\n` +
          `key_id = "K"\nprivate_key = "x"\n`,
      ),
    (err: Error) => {
      assert.match(
        err.message,
        /providers\.apple\.apple_client_secret\.private_key_path: exactly one/,
      );
      assert.match(err.message, /providers\.apple2\.client_secret: cannot be set together/);
      return true;
    },
  );
});

Deno.test('apple: a domain allow-list admits Apple\'s string email_verified "true", not "false"', async () => {
  const { pem } = await teamKey();
  for (const [verified, status] of [["true", 200], ["false", 403]] as const) {
    await using apple = await startApple({ email_verified: verified });
    await using te = await startTokenServer({
      toml: appleToml(
        apple.issuer,
        `private_key = "\${APPLE_P8}"`,
        `[registration]\ndomain_allowlist = ["privaterelay.appleid.com"]\n`,
      ),
      env: { APPLE_P8: pem },
    });
    const res = await signIn(te.issuer, "c");
    const body = await res.json();
    assert.equal(res.status, status, JSON.stringify(body));
    if (status === 403) assert.equal(body.error, "access_denied");
  }
});

const APPLE_SUB = "001234.5d8a9c0b1e2f4a6b8c0d1e2f3a4b5c6d.1234";

/** The service with `apple` as provider `apple` (its key from the environment) and `extra` TOML. */
async function startAppleService(apple: OidcFixture, extra = ""): Promise<TokenServer> {
  const { pem } = await teamKey();
  return await startTokenServer({
    toml: appleToml(apple.issuer, `private_key = "\${APPLE_P8}"`, extra),
    env: { APPLE_P8: pem },
  });
}

/** Apple's `user` field as the app receives it on the first authorization. */
function appleUser(firstName: string, lastName: string): string {
  return JSON.stringify({
    name: { firstName, lastName },
    email: "x7qk2m9v4p@privaterelay.appleid.com",
  });
}

Deno.test("apple: the user field names a new user; a later one never overwrites a name", async () => {
  await using apple = await startApple();
  await using te = await startAppleService(apple);
  const { users } = te.server.deps.store;
  const bad = await signIn(te.issuer, "c0", { user: '{"name":"Jane"}' });
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).error, "invalid_request");
  assert.equal(apple.requests.length, 0, "a malformed user field costs no code");

  const first = await signIn(te.issuer, "c1", { user: appleUser("Jane", "Appleseed") });
  assert.equal(first.status, 200, await first.clone().text());
  await first.body?.cancel();
  const created = await users.findByExternalId("apple", APPLE_SUB);
  assert.equal(created?.display_name, "Jane Appleseed");

  await users.update(created!.id, (u) => ({ ...u, display_name: "Jane A." }));
  const again = await signIn(te.issuer, "c2", { user: appleUser("Someone", "Else") });
  assert.equal(again.status, 200);
  await again.body?.cancel();
  assert.equal((await users.get(created!.id))?.display_name, "Jane A.");
});

Deno.test("apple: the ID-token grant takes the user field too", async () => {
  await using apple = await startApple();
  await using te = await startAppleService(apple, `[grants]\nid_token = true\n`);
  const { nonce } = await (await fetch(`${te.url}/nonce`, { method: "POST" })).json();
  const idToken = await apple.server.issuer.buildToken({
    scopesOrTransform: (_h, p) => {
      const now = Math.floor(Date.now() / 1000);
      Object.assign(p, { iat: now, exp: now + 300, aud: SERVICES_ID, sub: APPLE_SUB, nonce });
    },
  });
  const res = await fetch(`${te.url}/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "id_token",
      provider: "apple",
      id_token: idToken,
      user: appleUser("Jane", "Appleseed"),
    }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  await res.body?.cancel();
  const user = await te.server.deps.store.users.findByExternalId("apple", APPLE_SUB);
  assert.equal(user?.display_name, "Jane Appleseed");
});

Deno.test("apple: a user field for a provider that is not Apple is invalid_request", async () => {
  await using idp = await startOidcProvider();
  await using te = await startTokenServer({
    toml: `[providers.idp]\nissuer = "${idp.issuer}"\nclient_id = "te-client"\n` +
      `client_secret = "s"\n`,
  });
  const res = await fetch(`${te.url}/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: "c",
      provider: "idp",
      redirect_uri: "https://app.example/callback",
      user: appleUser("Jane", "Appleseed"),
    }),
  });
  const body = await res.json();
  assert.equal(res.status, 400);
  assert.equal(body.error, "invalid_request");
  assert.match(body.error_description, /only to a Sign in with Apple provider/);
});

/** A Sign in with Apple server-to-server notification as Apple posts it. */
async function notify(
  te: { url: string },
  signed: string,
): Promise<Response> {
  return await fetch(`${te.url}/apple/notifications`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ payload: signed }),
  });
}

/** An event signed by the Apple fixture's key, shaped like Apple's (events as a JSON string). */
function appleEvent(
  apple: OidcFixture,
  type: string,
  over: Record<string, unknown> = {},
): Promise<string> {
  return apple.server.issuer.buildToken({
    scopesOrTransform: (_h, p) => {
      const now = Math.floor(Date.now() / 1000);
      for (const k of Object.keys(p)) delete p[k];
      Object.assign(p, {
        iss: apple.issuer,
        aud: SERVICES_ID,
        iat: now,
        jti: crypto.randomUUID(),
        events: JSON.stringify({
          type,
          sub: APPLE_SUB,
          email: "x7qk2m9v4p@privaterelay.appleid.com",
          is_private_email: "true",
          event_time: now * 1000,
        }),
        ...over,
      });
    },
  });
}

Deno.test("apple notifications: signed events revoke, delete and update; forged ones change nothing", async () => {
  await using apple = await startApple();
  await using te = await startAppleService(apple);
  const { users } = te.server.deps.store;
  const session = async (code: string) => {
    const res = await signIn(te.issuer, code);
    assert.equal(res.status, 200);
    return (await res.json()).refresh_token as string;
  };
  const refreshes = async (token: string) => {
    const res = await fetch(`${te.url}/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: token }),
    });
    await res.body?.cancel();
    return res.status === 200;
  };
  let token = await session("c1");
  const user = (await users.findByExternalId("apple", APPLE_SUB))!;
  const metadataBefore = user.metadata;

  // Forged: another key, the wrong audience, too old, not JSON: 400, nothing changed.
  const forger = await generateKeyPair("RS256");
  const now = Math.floor(Date.now() / 1000);
  const forged = await new SignJWT({
    events: JSON.stringify({ type: "account-delete", sub: APPLE_SUB, event_time: now }),
  }).setProtectedHeader({ alg: "RS256", kid: "forged" }).setIssuer(apple.issuer)
    .setAudience(SERVICES_ID).setIssuedAt(now).sign(forger.privateKey);
  for (
    const bad of [
      forged,
      await appleEvent(apple, "account-delete", { aud: "com.example.other" }),
      await appleEvent(apple, "account-delete", { iat: now - 7200 }),
      await appleEvent(apple, "account-delete", { iss: "https://evil.example" }),
    ]
  ) {
    const res = await notify(te, bad);
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error, "invalid_request");
  }
  const notJson = await fetch(`${te.url}/apple/notifications`, { method: "POST", body: "x" });
  assert.equal(notJson.status, 400);
  await notJson.body?.cancel();
  assert.equal((await users.get(user.id))?.status, "active");
  assert.deepEqual((await users.get(user.id))?.metadata, metadataBefore);
  assert.ok(await refreshes(token)); // the session survived
  token = await session("c2");

  // Email forwarding off and on again: metadata only.
  for (const [type, value] of [["email-disabled", "disabled"], ["email-enabled", "enabled"]]) {
    const res = await notify(te, await appleEvent(apple, type!));
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "");
    const u = await users.get(user.id);
    assert.equal(u?.metadata.apple_email_forwarding, value);
    assert.equal(typeof u?.metadata.apple_email_forwarding_at, "string");
  }
  assert.ok(await refreshes(token));

  // An event type this release does not know: 200, nothing changes.
  const unknown = await notify(te, await appleEvent(apple, "something-new"));
  assert.equal(unknown.status, 200);
  await unknown.body?.cancel();

  // consent-revoked: every session revoked, the user stays.
  token = await session("c3");
  const res = await notify(te, await appleEvent(apple, "consent-revoked"));
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.equal(await refreshes(token), false);
  assert.equal((await users.get(user.id))?.status, "active");

  // account-delete: sessions revoked and the user soft-deleted.
  token = await session("c4");
  const del = await notify(te, await appleEvent(apple, "account-delete"));
  assert.equal(del.status, 200);
  await del.body?.cancel();
  assert.equal(await refreshes(token), false);
  assert.equal((await users.get(user.id))?.status, "Deleted");
  // Apple is the actor of what its notifications did, in the audit trail.
  const trail = await te.server.deps.store.audit.list({ user: user.id }, 100);
  const notified = trail.filter((r) => r.action !== "user.created");
  assert.ok(notified.every((r) => r.actor.type === "provider"), "each by the provider");
  assert.deepEqual([...new Set(notified.map((r) => r.action))].sort(), [
    "session.revoked",
    "user.deleted",
    "user.updated", // mail forwarding
  ]);
  assert.equal(notified[0]!.action, "session.revoked", "the deletion's sessions last");
  assert.ok(
    notified.filter((r) => r.action === "session.revoked")
      .every((r) => r.details.reason === "apple_notification"),
  );
});

Deno.test("apple notifications: a body that is not JSON is refused before it is read", async () => {
  await using apple = await startApple();
  await using te = await startAppleService(apple, `[server]\nbody_timeout = "120s"\n`);
  // The body never arrives: only an answer that did not wait for it comes back.
  const stalled = await stalledRequest(te.url, "/apple/notifications", {
    contentType: "text/plain",
    sent: "payload=",
  });
  try {
    const answer = await stalled.answer(60_000);
    assert.notEqual(answer, "no answer");
    assert.equal((answer as { status: number }).status, 400);
    assert.match((answer as { body: string }).body, /"error":"invalid_request"/);
  } finally {
    stalled.close();
  }
  // A declared size over the cap is refused the same way (413, body unread).
  const large = await stalledRequest(te.url, "/apple/notifications", {
    contentType: "application/json",
    sent: "x".repeat(17 * 1024),
  });
  try {
    const answer = await large.answer(60_000);
    assert.equal((answer as { status: number }).status, 413);
  } finally {
    large.close();
  }
});

Deno.test("apple notifications: /health keeps its turn while a flood of junk notifications is refused", async () => {
  await using apple = await startApple();
  const { pem } = await teamKey();
  const dir = await Deno.makeTempDir({ prefix: "te-apple-flood-" });
  const te = await spawnTokenServer({
    dir,
    toml: `[server]\nport = 0\n[rate_limit]\nenabled = false\n` +
      appleToml(apple.issuer, `private_key = "\${APPLE_P8}"`),
    env: { APPLE_P8: pem },
  });
  const timed = async (send: () => Promise<Response>) => {
    const start = performance.now();
    const res = await send();
    await res.body?.cancel();
    return { status: res.status, ms: performance.now() - start };
  };
  const health = () => timed(() => fetch(`${te.url}/health`));
  const junk = [
    { type: "text/plain", body: "x".repeat(16 * 1024) },
    { type: "application/json", body: JSON.stringify({ payload: "not a JWS ".repeat(1000) }) },
    { type: "application/json", body: "[" + "1,".repeat(5000) + "1]" },
  ];
  const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  try {
    const alone: number[] = [];
    for (let i = 0; i < 30; i++) alone.push((await health()).ms);
    // 1,000 junk notifications, 32 in flight at a time, while /health is asked in a loop.
    let next = 0;
    const refused: number[] = [];
    const statuses = new Set<number>();
    const flood = Promise.all(Array.from({ length: 32 }, async () => {
      while (next < 1000) {
        const j = junk[next++ % junk.length]!;
        const r = await timed(() =>
          fetch(`${te.url}/apple/notifications`, {
            method: "POST",
            headers: { "content-type": j.type },
            body: j.body,
          })
        );
        statuses.add(r.status);
        refused.push(r.ms);
      }
    }));
    let flooding = true;
    flood.finally(() => flooding = false);
    const loaded: number[] = [];
    while (flooding) {
      const r = await health();
      assert.equal(r.status, 200);
      loaded.push(r.ms);
    }
    await flood;
    assert.deepEqual([...statuses], [400]);
    // Relative, not absolute: a health check waits no longer than the junk around it does.
    assert.ok(loaded.length > 0);
    assert.ok(
      median(loaded) <= 3 * median(refused),
      `health p50 ${median(loaded)} ms under the flood (${median(alone)} ms alone) against ` +
        `refused p50 ${median(refused)} ms`,
    );
  } finally {
    await te.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("apple notifications: the route exists only with an Apple provider", async () => {
  await using idp = await startOidcProvider();
  await using te = await startTokenServer({
    toml: `[providers.idp]\nissuer = "${idp.issuer}"\nclient_id = "c"\nclient_secret = "s"\n`,
  });
  const res = await fetch(`${te.url}/apple/notifications`, { method: "POST", body: "{}" });
  assert.equal(res.status, 404);
  await res.body?.cancel();
});

/** A `keys.encryption_key` of the minimum length: Apple's refresh tokens are kept sealed. */
const SEAL = `[keys]\nencryption_key = "${"k".repeat(32)}"\n`;

/** A scheduler whose runs the test triggers, and awaits, itself. */
function manualScheduler() {
  const tasks = new Map<number, () => void | Promise<void>>();
  return {
    every(ms: number, task: () => void | Promise<void>) {
      tasks.set(ms, task);
      return () => tasks.delete(ms);
    },
    /** One run of the provider-token revocation queue, awaited. */
    async revokeRun(): Promise<void> {
      const task = tasks.get(REVOKE_INTERVAL_MS);
      assert.ok(task, "serve scheduled the revocation queue");
      await task();
    },
  };
}

/** The service with the Apple fixture, the internal API, an injected clock and scheduler. */
async function startRevokingService(apple: AppleFixture, options: {
  seal?: boolean;
  log?: TokenServerOptions["log"];
} = {}) {
  const { pem, publicKey } = await teamKey();
  const clock = new FixedClock(Date.now());
  const scheduler = manualScheduler();
  const te = await startTokenServer({
    toml: appleToml(
      apple.issuer,
      `private_key = "\${APPLE_P8}"`,
      `[internal_api]\nenabled = true\nauth_methods = ["operator_token", "shared_secret"]\n` +
        `shared_secret = "${SECRET}"\n` + (options.seal === false ? "" : SEAL),
    ),
    env: { APPLE_P8: pem },
    clock,
    scheduler,
    ...(options.log ? { log: options.log } : {}),
  });
  return { te, clock, scheduler, publicKey };
}

/** The metric line `name` of `/internal/metrics`, as a number. */
async function metric(te: TokenServer, name: string): Promise<number> {
  const res = await adminFetch(te, "GET", "/internal/metrics");
  assert.equal(res.status, 200);
  const line = (await res.text()).split("\n").find((l) => l.startsWith(`${name} `));
  assert.ok(line, `metric ${name}`);
  return Number(line.slice(name.length + 1));
}

/** Checks one recorded revoke: Apple's form, with the minted secret and the kept token. */
async function assertRevoke(
  req: AppleRevokeRequest,
  token: string,
  publicKey: CryptoKey | KeyObject,
): Promise<void> {
  assert.equal(req.token, token);
  assert.equal(req.token_type_hint, "refresh_token");
  await assertAppleSecret(req, publicKey);
}

Deno.test("apple revoke: deleting a user through the internal API revokes their Apple refresh token; a revoke failing twice is retried with backoff until it succeeds", async () => {
  await using apple = await startApple();
  const { te, clock, scheduler, publicKey } = await startRevokingService(apple);
  await using _ = te;
  const res = await signIn(te.issuer, "c1");
  assert.equal(res.status, 200, await res.clone().text());
  await res.body?.cancel();
  const appleToken = apple.refreshTokens[0]!;
  assert.equal(typeof appleToken, "string");
  const user = (await te.server.deps.store.users.findByExternalId("apple", APPLE_SUB))!;

  apple.revokeFailures.push(503, 503);
  const deleted = await adminJson<{ status: string }>(
    te,
    "DELETE",
    `/internal/users/${user.id}`,
    200,
  );
  assert.equal(deleted.status, "Deleted");
  assert.equal(apple.revocations.length, 0, "the deletion never waits for Apple");
  const stats = await adminJson<{ provider_revocations: { pending: number } }>(
    te,
    "GET",
    "/internal/stats",
    200,
  );
  assert.deepEqual(stats.provider_revocations, { pending: 1 });

  await scheduler.revokeRun();
  assert.equal(apple.revocations.length, 1, "first attempt: 503");
  assert.equal(await metric(te, 'token_exchange_provider_revocations_total{outcome="failed"}'), 1);
  assert.equal(await metric(te, "token_exchange_provider_revocations_pending"), 1);
  await scheduler.revokeRun();
  assert.equal(apple.revocations.length, 1, "not again before its backoff");
  clock.advance(30_000);
  await scheduler.revokeRun();
  assert.equal(apple.revocations.length, 2, "second attempt after 30 s: 503");
  clock.advance(59_999);
  await scheduler.revokeRun();
  assert.equal(apple.revocations.length, 2, "the wait doubled");
  clock.advance(1);
  await scheduler.revokeRun();
  assert.equal(apple.revocations.length, 3, "third attempt after 60 s more: 200");
  for (const r of apple.revocations) await assertRevoke(r, appleToken, publicKey);

  assert.equal(await metric(te, 'token_exchange_provider_revocations_total{outcome="revoked"}'), 1);
  assert.equal(await metric(te, 'token_exchange_provider_revocations_total{outcome="failed"}'), 2);
  assert.equal(await metric(te, "token_exchange_provider_revocations_pending"), 0);
  clock.advance(3_600_000);
  await scheduler.revokeRun();
  assert.equal(apple.revocations.length, 3, "done: never sent again");
});

Deno.test("apple revoke: a deletion from the console queues the revoke, and the overview counts it until it is sent", async () => {
  await using apple = await startApple();
  const { te, scheduler, publicKey } = await startRevokingService(apple);
  await using _ = te;
  const res = await signIn(te.issuer, "c1");
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const user = (await te.server.deps.store.users.findByExternalId("apple", APPLE_SUB))!;

  const cookie = await consoleSession(te, "carol");
  const csrf = await consoleCsrf(te, cookie, `/admin/users/${user.id}/delete`);
  const del = await fetch(`${te.internalUrl}/admin/users/${user.id}/delete`, {
    method: "POST",
    headers: consoleForm(te, cookie),
    body: new URLSearchParams({ csrf }),
    redirect: "manual",
  });
  await del.body?.cancel();
  assert.equal(del.status, 303);
  assert.equal((await te.server.deps.store.users.get(user.id))?.status, "Deleted");

  const tile = async () => {
    const html = await (await fetch(`${te.internalUrl}/admin/`, { headers: { cookie } })).text();
    const m = /<span class="value">(\d+)<\/span><span class="label">Apple revocations pending/
      .exec(html);
    assert.ok(m, "the overview shows the tile");
    return Number(m[1]);
  };
  assert.equal(await tile(), 1);
  await scheduler.revokeRun();
  assert.equal(apple.revocations.length, 1);
  await assertRevoke(apple.revocations[0]!, apple.refreshTokens[0]!, publicKey);
  assert.equal(await tile(), 0);
});

Deno.test("apple revoke: Apple's account-delete notification deletes through the same operation and revokes the token", async () => {
  await using apple = await startApple();
  const { te, scheduler, publicKey } = await startRevokingService(apple);
  await using _ = te;
  const res = await signIn(te.issuer, "c1");
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const user = (await te.server.deps.store.users.findByExternalId("apple", APPLE_SUB))!;
  const note = await notify(te, await appleEvent(apple, "account-delete"));
  assert.equal(note.status, 200);
  await note.body?.cancel();
  assert.equal((await te.server.deps.store.users.get(user.id))?.status, "Deleted");
  assert.equal(apple.revocations.length, 0);
  await scheduler.revokeRun();
  assert.equal(apple.revocations.length, 1);
  await assertRevoke(apple.revocations[0]!, apple.refreshTokens[0]!, publicKey);
});

Deno.test("apple revoke: without keys.encryption_key no Apple token is kept (a warning says so) and a deletion sends nothing", async () => {
  await using apple = await startApple();
  const { log, lines } = createMemoryLogger();
  const { te, scheduler } = await startRevokingService(apple, { seal: false, log });
  await using _ = te;
  assert.ok(
    lines.some((l) =>
      String(l.msg).startsWith("keys.encryption_key is not set: Sign in with Apple")
    ),
    "a startup warning names the setting",
  );
  const res = await signIn(te.issuer, "c1");
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const user = (await te.server.deps.store.users.findByExternalId("apple", APPLE_SUB))!;
  await adminJson(te, "DELETE", `/internal/users/${user.id}`, 200);
  await scheduler.revokeRun();
  assert.equal(apple.revocations.length, 0);
  assert.equal(await te.server.deps.store.providerTokens.pending(), 0);
});

Deno.test("apple revoke: the kept token is sealed: the store never holds Apple's refresh token in plain", async () => {
  await using apple = await startApple();
  const { pem } = await teamKey();
  await using te = await startTokenServer({
    toml: appleToml(apple.issuer, `private_key = "\${APPLE_P8}"`, SEAL),
    env: { APPLE_P8: pem },
  });
  const res = await signIn(te.issuer, "c1");
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const token = apple.refreshTokens[0]!;
  let kept = 0;
  for await (const e of te.kv.list({ prefix: [] })) {
    const text = JSON.stringify(e.value, (_k, v) => typeof v === "bigint" ? String(v) : v);
    assert.ok(!text.includes(token), `plain token under ${String(e.key)}`);
    if (e.key[0] === "provider_tokens") kept++;
  }
  assert.equal(kept, 1, "one token kept for the user");
});

Deno.test("apple revoke: PATCH status Deleted queues the revoke as DELETE does", async () => {
  await using apple = await startApple();
  const { te, scheduler } = await startRevokingService(apple);
  await using _ = te;
  const res = await signIn(te.issuer, "c1");
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const user = (await te.server.deps.store.users.findByExternalId("apple", APPLE_SUB))!;
  await adminJson(te, "PATCH", `/internal/users/${user.id}`, 200, { body: { status: "Deleted" } });
  assert.equal(await te.server.deps.store.providerTokens.pending(), 1);
  await scheduler.revokeRun();
  assert.deepEqual(apple.revocations.map((r) => r.token), [apple.refreshTokens[0]]);
});

const stores = storeBackends("apple notifications");

stores.test(
  "an event whose sub no store can hold names no user: 200 and nothing changed, on every store",
  async (storage) => {
    await using apple = await startApple();
    await using te = await startAppleService(apple, storage);
    const res = await signIn(te.issuer, "c1");
    assert.equal(res.status, 200);
    await res.body?.cancel();
    for (const sub of [`${APPLE_SUB}\u0000`, `${APPLE_SUB}\ud800`]) {
      const now = Math.floor(Date.now() / 1000);
      const events = JSON.stringify({ type: "account-delete", sub, event_time: now });
      const answer = await notify(te, await appleEvent(apple, "account-delete", { events }));
      assert.equal(answer.status, 200, `${JSON.stringify(sub)}: ${await answer.clone().text()}`);
      await answer.body?.cancel();
    }
    const user = await te.server.deps.store.users.findByExternalId("apple", APPLE_SUB);
    assert.equal(user?.status, "active");
  },
);

// Last: registered after every case, so it runs after them.
stores.stopAfterAll();
