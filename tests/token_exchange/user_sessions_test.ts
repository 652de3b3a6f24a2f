/**
 * The sessions a user can see and end (`GET /sessions`, `DELETE /sessions/{id}`), end to end on
 * Deno KV and PostgreSQL: real sign-ins through the code exchange, the user's own access token
 * (Bearer, or DPoP through `oauth4webapi`'s resource requests), and the `session.revoked`
 * webhook verified with `standardwebhooks`.
 */
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { FixedClock } from "@org/shared";
import { postForm } from "../support/id_tokens.ts";
import { type OidcFixture, startOidcProvider } from "../support/oidc.ts";
import { storeBackends } from "../support/store_backends.ts";
import { providerToml, startTokenServer, type TokenServer } from "../support/token_server.ts";
import { waitFor } from "../support/wait.ts";
import { startWebhookReceiver } from "../support/webhook_receiver.ts";

const WHSEC = "whsec_" + btoa("session-webhook-secret-32-bytes!");
const insecure = { [oauth.allowInsecureRequests]: true } as const;

interface Tokens {
  readonly access_token: string;
  readonly refresh_token: string;
}

interface World extends AsyncDisposable {
  readonly te: TokenServer;
  readonly idp: OidcFixture;
  /** Signs `sub` in with the code exchange, sending `userAgent`. */
  signIn(sub: string, userAgent?: string): Promise<Tokens>;
  /** A request to the sessions API with `token` as Bearer. */
  api(method: string, path: string, token?: string): Promise<Response>;
}

async function world(storage: string, toml = "", clock?: FixedClock): Promise<World> {
  const idp = await startOidcProvider();
  let sub = "";
  idp.server.service.on("beforeTokenSigning", (t: { payload: Record<string, unknown> }) => {
    if (t.payload.aud !== undefined) Object.assign(t.payload, { sub, email: `${sub}@example.com` });
  });
  const te = await startTokenServer({
    toml: storage + providerToml("idp", idp.issuer) + toml,
    env: { W: WHSEC },
    ...(clock ? { clock } : {}),
  });
  return {
    te,
    idp,
    async signIn(s, userAgent = "TestApp/1.0 (Linux)") {
      sub = s;
      const res = await fetch(`${te.url}/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "user-agent": userAgent,
        },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: `code-${s}`,
          provider: "idp",
          redirect_uri: "https://app.example/cb",
        }),
      });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      return body;
    },
    api: (method, path, token) =>
      fetch(`${te.url}${path}`, {
        method,
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      }),
    async [Symbol.asyncDispose]() {
      await te.close();
      await idp.close();
    },
  };
}

interface Listed {
  id: string;
  created_at: string;
  last_used_at: string;
  expires_at: string;
  client: { provider: string; client_id: string | null } | null;
  user_agent: string | null;
  ip_prefix: string | null;
  current: boolean;
}

async function list(w: World, token: string): Promise<Listed[]> {
  const res = await w.api("GET", "/sessions", token);
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(res.headers.get("cache-control"), "no-store");
  return body.sessions;
}

const sidOf = (t: Tokens) => JSON.parse(atob(t.access_token.split(".")[1]!)).sid as string;

const stores = storeBackends("user sessions");

stores.test("a user lists their own sessions with client, device and current", async (storage) => {
  await using w = await world(storage);
  const phone = await w.signIn("alice", "Phone/2.0");
  const laptop = await w.signIn("alice", "Laptop/3.1");
  await w.signIn("bob");
  const mine = await list(w, laptop.access_token);
  assert.deepEqual(mine.map((s) => s.id), [sidOf(phone), sidOf(laptop)]);
  assert.deepEqual(mine.map((s) => s.current), [false, true]);
  assert.deepEqual(mine.map((s) => s.user_agent), ["Phone/2.0", "Laptop/3.1"]);
  for (const s of mine) {
    assert.deepEqual(s.client, { provider: "idp", client_id: "te-client" });
    assert.equal(s.ip_prefix, "127.0.0.0/24");
    assert.equal(s.last_used_at, s.created_at);
    assert.ok(Date.parse(s.expires_at) > Date.parse(s.created_at));
    assert.deepEqual(Object.keys(s).sort(), [
      "client",
      "created_at",
      "current",
      "expires_at",
      "id",
      "ip_prefix",
      "last_used_at",
      "user_agent",
    ]);
  }
});

stores.test("a user cannot see or end another user's sessions", async (storage) => {
  await using w = await world(storage);
  const alice = await w.signIn("alice");
  const bob = await w.signIn("bob");
  const bobs = await list(w, bob.access_token);
  assert.deepEqual(bobs.map((s) => s.id), [sidOf(bob)]);
  assert.ok(!(await list(w, alice.access_token)).some((s) => s.id === sidOf(bob)));
  const res = await w.api("DELETE", `/sessions/${sidOf(bob)}`, alice.access_token);
  assert.equal(res.status, 404);
  assert.equal((await res.json()).error, "not_found");
  // Bob's session lives on.
  const refreshed = await postForm(`${w.te.url}/token`, {
    grant_type: "refresh_token",
    refresh_token: bob.refresh_token,
  });
  assert.equal(refreshed.status, 200);
  await refreshed.body?.cancel();
  assert.equal((await list(w, bob.access_token)).length, 1);
});

stores.test("ending a session revokes its family and sends session.revoked", async (storage) => {
  await using hook = startWebhookReceiver(WHSEC);
  await using w = await world(
    storage,
    `[[webhooks.endpoints]]\nurl = "${hook.url}"\nsecret = "\${W}"\nevents = ["session.revoked"]\n`,
  );
  const old = await w.signIn("alice", "Old/1");
  const now = await w.signIn("alice", "New/1");
  const res = await w.api("DELETE", `/sessions/${sidOf(old)}`, now.access_token);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { id: sidOf(old), revoked: true });
  const refused = await postForm(`${w.te.url}/token`, {
    grant_type: "refresh_token",
    refresh_token: old.refresh_token,
  });
  assert.equal(refused.status, 400);
  assert.equal((await refused.json()).error, "invalid_grant");
  assert.deepEqual((await list(w, now.access_token)).map((s) => s.id), [sidOf(now)]);
  await waitFor(() => hook.received.length > 0, "the session.revoked delivery");
  const event = hook.received[0]!;
  assert.ok(event.verified);
  assert.equal(event.type, "session.revoked");
  assert.equal(event.data.session_id, sidOf(old));
  assert.equal(event.data.reason, "logout");
  // Ending it again, or with the ended session's own token: refused.
  assert.equal((await w.api("DELETE", `/sessions/${sidOf(old)}`, now.access_token)).status, 404);
  const ended = await w.api("GET", "/sessions", old.access_token);
  assert.equal(ended.status, 401);
  assert.equal((await ended.json()).error, "invalid_token");
});

stores.test("no token, a foreign or garbage token is 401 invalid_token", async (storage) => {
  await using w = await world(storage);
  const alice = await w.signIn("alice");
  for (const token of [undefined, "garbage", alice.refresh_token, alice.access_token + "x"]) {
    const res = await w.api("GET", "/sessions", token);
    assert.equal(res.status, 401, String(token));
    assert.equal((await res.json()).error, "invalid_token");
    assert.match(res.headers.get("www-authenticate") ?? "", /Bearer/);
  }
  assert.equal((await w.api("DELETE", "/sessions/ses_nope", alice.access_token)).status, 404);
});

stores.test("privacy settings off keep no user agent or address prefix", async (storage) => {
  await using w = await world(
    storage,
    "[privacy]\nsession_user_agent = false\nsession_ip_prefix = false\n",
  );
  const alice = await w.signIn("alice");
  const [s] = await list(w, alice.access_token);
  assert.equal(s!.user_agent, null);
  assert.equal(s!.ip_prefix, null);
});

stores.test("last_used_at follows refreshes, a few minutes at a time", async (storage) => {
  const clock = new FixedClock(Date.now());
  await using w = await world(storage, "", clock);
  let t = await w.signIn("alice");
  const created = (await list(w, t.access_token))[0]!.created_at;
  clock.advance(10 * 60_000);
  const refresh = async () => {
    const res = await postForm(`${w.te.url}/token`, {
      grant_type: "refresh_token",
      refresh_token: t.refresh_token,
    });
    t = await res.json();
    assert.equal(res.status, 200);
  };
  await refresh();
  const expected = new Date(clock.now()).toISOString();
  await waitFor(
    async () => (await list(w, t.access_token))[0]!.last_used_at === expected,
    "last_used_at after the refresh",
  );
  assert.equal((await list(w, t.access_token))[0]!.created_at, created);
});

stores.test("a DPoP-bound token needs its proof (oauth4webapi)", async (storage) => {
  await using w = await world(storage);
  // Carol first signs in without DPoP (that session is not the bound one's concern).
  await w.signIn("carol");
  const url = new URL(w.te.issuer);
  const as = await oauth.processDiscoveryResponse(
    url,
    await oauth.discoveryRequest(url, { algorithm: "oidc", ...insecure }),
  );
  const client: oauth.Client = { client_id: "app" };
  const dpop = oauth.DPoP(client, await oauth.generateKeyPair("ES256"));
  const grant = () =>
    oauth.genericTokenEndpointRequest(as, client, oauth.None(), "authorization_code", {
      code: "c",
      provider: "idp",
      redirect_uri: "https://app.example/cb",
    }, { ...insecure, DPoP: dpop });
  let tokens: oauth.TokenEndpointResponse;
  try {
    tokens = await oauth.processGenericTokenEndpointResponse(as, client, await grant());
  } catch (err) {
    if (!oauth.isDPoPNonceError(err)) throw err;
    tokens = await oauth.processGenericTokenEndpointResponse(as, client, await grant());
  }
  assert.equal(tokens.token_type, "dpop");
  // As Bearer: refused.
  const bearer = await w.api("GET", "/sessions", tokens.access_token);
  assert.equal(bearer.status, 401);
  assert.match((await bearer.json()).error_description, /bound to a DPoP key/);
  // With a proof: the client learns the nonce from the first answer, then succeeds.
  const resource = () =>
    oauth.protectedResourceRequest(
      tokens.access_token,
      "GET",
      new URL(`${w.te.url}/sessions`),
      new Headers(),
      null,
      { ...insecure, DPoP: dpop },
    );
  let res: Response;
  try {
    res = await resource();
  } catch (err) {
    if (!oauth.isDPoPNonceError(err)) throw err;
    res = await resource();
  }
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.sessions.length, 2);
  assert.deepEqual(body.sessions.map((s: Listed) => s.current), [false, true]);
  // A proof by another key: refused before its nonce is even looked at.
  const other = oauth.DPoP(client, await oauth.generateKeyPair("ES256"));
  const refusal = await oauth.protectedResourceRequest(
    tokens.access_token,
    "GET",
    new URL(`${w.te.url}/sessions`),
    new Headers(),
    null,
    { ...insecure, DPoP: other },
  ).then(() => undefined, (err) => err);
  assert.ok(refusal instanceof oauth.WWWAuthenticateChallengeError, String(refusal));
  assert.equal(refusal.response.status, 401);
  assert.match((await refusal.response.json()).error_description, /not signed by the token's key/);
});

stores.stopAfterAll();
