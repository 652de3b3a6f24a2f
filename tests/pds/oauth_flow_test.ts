/**
 * The AT Protocol OAuth flow end to end against the loopback peer (tests/support/atproto_peer.ts),
 * over real HTTPS with a test CA, with the client's documents served by a loopback "site".
 */
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import assert from "node:assert/strict";
import { DeployError } from "../../deploy/errors.ts";
import { generateClientKey, type PrivateEcJwk } from "../../deploy/pds/client_key.ts";
import { clientJwks, clientMetadata, clientUrls } from "../../deploy/pds/client_metadata.ts";
import { finishLogin, type OAuthDeps, startLogin } from "../../deploy/pds/oauth.ts";
import { getRecord, listRecords, putRecord } from "../../deploy/pds/repo.ts";
import { secretsManagerStore } from "../../deploy/pds/secret.ts";
import { openPdsAgent } from "../../deploy/pds/session.ts";
import { createJsonLogger } from "@org/shared";
import { startSecretsManagerFake } from "../fakes/secrets_manager.ts";
import { type AtprotoPeer, startAtprotoPeer } from "../support/atproto_peer.ts";
import { testAwsConfig } from "../support/s3.ts";
import { createTestCa, opensslAvailable, type TestCa } from "../support/test_ca.ts";

const OPENSSL = await opensslAvailable("pds oauth tests");

/** A loopback https "site" serving the client documents for `key`. */
function startSite(ca: TestCa, key: () => PrivateEcJwk) {
  let origin = "";
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: ca.certPem, key: ca.keyPem, onListen() {} },
    (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/oauth/client-metadata.json") {
        return Response.json(clientMetadata(origin, "Test blog"));
      }
      if (path === "/oauth/jwks.json") return Response.json(clientJwks(key()));
      return new Response("not found", { status: 404 });
    },
  );
  origin = `https://localhost:${server.addr.port}`;
  return { origin, [Symbol.asyncDispose]: () => server.shutdown() };
}

async function world(peerOptions: Parameters<typeof startAtprotoPeer>[1] = {}) {
  const ca = await createTestCa();
  const peer = startAtprotoPeer(ca, peerOptions);
  const key = await generateClientKey(new Date());
  const site = startSite(ca, () => key);
  const sm = startSecretsManagerFake();
  const sdk = new SecretsManagerClient({ ...testAwsConfig, endpoint: sm.endpoint, maxAttempts: 1 });
  const store = secretsManagerStore(sdk, "blog/atproto", {
    tags: { app: "blog", environment: "production" },
    sleep: () => Promise.resolve(),
  });
  await store.update(() => ({ clientKey: key }));
  const lines: string[] = [];
  const log = createJsonLogger({ level: "debug", write: (l) => lines.push(l) });
  const deps: OAuthDeps = { fetch: ca.fetch, plcDirectory: peer.origin, now: () => Date.now() };
  const client = { ...clientUrls(site.origin), key };
  return {
    ca,
    peer,
    site,
    sm,
    store,
    deps,
    client,
    lines,
    log,
    agent: () => openPdsAgent({ ...deps, store, origin: site.origin, log }),
    async login(identifier: string = peer.handle) {
      const pending = await startLogin(client, identifier, peer.origin, deps);
      const callback = await peer.authorize(pending.authorizationUrl);
      const done = await finishLogin(client, pending, callback, deps);
      await store.update((s) => ({ ...s, did: done.did, session: done.session }));
      return done;
    },
    async [Symbol.asyncDispose]() {
      sdk.destroy();
      await sm.close();
      await site[Symbol.asyncDispose]();
      await peer[Symbol.asyncDispose]();
      await ca[Symbol.asyncDispose]();
    },
  };
}

/** Every refusal was the server asking for its DPoP nonce: no proof or assertion failed. */
function onlyNonceRefusals(peer: AtprotoPeer) {
  assert.deepEqual(peer.refusals.filter((r) => !r.includes("use_dpop_nonce")), []);
}

Deno.test({
  name: "pds oauth: login by handle with PAR, PKCE, DPoP nonces and a client assertion",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world();
    const { did, session } = await w.login();
    assert.equal(did, w.peer.did);
    assert.equal(session.pds, w.peer.origin);
    assert.equal(session.issuer, w.peer.origin);
    assert.match(session.scope, /\batproto\b/);
    // The first PAR and the first token request met the nonce challenge and retried.
    assert.ok(w.peer.refusals.some((r) => r.startsWith("/oauth/par: use_dpop_nonce")));
    onlyNonceRefusals(w.peer);
  },
});

Deno.test({
  name: "pds oauth: login by did:web DID skips the handle resolver",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world({ didMethod: "web" });
    const { did } = await w.login(w.peer.did);
    assert.equal(did, w.peer.did);
    assert.ok(!w.peer.requests.includes("GET /xrpc/com.atproto.identity.resolveHandle"));
    onlyNonceRefusals(w.peer);
  },
});

Deno.test({
  name: "pds oauth: records are written, read and listed through the DPoP-bound session",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world({ pageSize: 2 });
    await w.login();
    const agent = await w.agent();
    for (const rkey of ["3a", "3b", "3c"]) {
      await putRecord(agent, "site.standard.document", rkey, {
        $type: "site.standard.document",
        title: rkey,
      });
    }
    const first = await getRecord(agent, "site.standard.document", "3a");
    assert.equal(first?.value.title, "3a");
    assert.equal(await getRecord(agent, "site.standard.document", "zz"), null);
    const all = await listRecords(agent, "site.standard.document");
    assert.deepEqual(all.map((r) => r.value.title), ["3a", "3b", "3c"]);
    // A stale swap is refused rather than overwriting a concurrent change.
    await assert.rejects(
      putRecord(agent, "site.standard.document", "3a", { $type: "site.standard.document" }, "old"),
      (err) => err instanceof DeployError && /InvalidSwap/.test(err.message),
    );
  },
});

Deno.test({
  name: "pds oauth: an expired access token is refreshed once, and the rotation is stored first",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world();
    await w.login();
    const before = (await w.store.read())?.session?.refreshToken;
    w.peer.expireAccessTokens();
    w.peer.rotateNonce();
    const agent = await w.agent();
    await putRecord(agent, "site.standard.document", "3a", { $type: "site.standard.document" });
    assert.equal(w.peer.refreshes, 1);
    const after = (await w.store.read())?.session?.refreshToken;
    assert.ok(after && after !== before);
    onlyNonceRefusals(
      { ...w.peer, refusals: w.peer.refusals.filter((r) => !r.includes("invalid_token")) },
    );
  },
});

Deno.test({
  name: "pds oauth: a rotation whose write fails is retried until stored",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world({ accessTokenSeconds: 30 }); // inside the refresh margin
    await w.login();
    w.sm.fail("PutSecretValue", { code: "InternalServiceError", status: 500, times: 2 });
    const agent = await w.agent();
    await putRecord(agent, "site.standard.document", "3a", { $type: "site.standard.document" });
    assert.equal(w.peer.refreshes, 1);
    assert.equal(w.sm.callsOf("PutSecretValue").length, 1 + 3); // login + 2 failures + success
    const stored = (await w.store.read())?.session;
    assert.ok(stored);
    // The stored session is the live one: a second run works without another login.
    const again = await w.agent();
    await getRecord(again, "site.standard.document", "3a");
  },
});

Deno.test({
  name: "pds oauth: a revoked session asks for login again",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world();
    await w.login();
    w.peer.revokeAll();
    w.peer.expireAccessTokens();
    const agent = await w.agent();
    await assert.rejects(
      getRecord(agent, "site.standard.document", "3a"),
      (err) => err instanceof DeployError && err.code === "login_required",
    );
  },
});

Deno.test({
  name: "pds oauth: a denied consent, a forged state and another account are refused",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world();
    const denied = await startLogin(w.client, w.peer.handle, w.peer.origin, w.deps);
    const back = await w.peer.authorize(denied.authorizationUrl, "deny");
    await assert.rejects(
      finishLogin(w.client, denied, back, w.deps),
      (err) =>
        err instanceof DeployError && err.code === "oauth_failed" &&
        /access_denied/.test(err.message),
    );
    const forged = await startLogin(w.client, w.peer.handle, w.peer.origin, w.deps);
    const url = new URL(await w.peer.authorize(forged.authorizationUrl));
    url.searchParams.set("state", "forged");
    await assert.rejects(
      finishLogin(w.client, forged, url.href, w.deps),
      (err) => err instanceof DeployError && err.code === "oauth_failed",
    );
    const other = await startLogin(w.client, w.peer.handle, w.peer.origin, w.deps);
    const callback = await w.peer.authorize(other.authorizationUrl);
    await assert.rejects(
      finishLogin(w.client, { ...other, did: "did:plc:someoneelseentirelyxx" }, callback, w.deps),
      (err) => err instanceof DeployError && /not for did:plc:someone/.test(err.message),
    );
  },
});

Deno.test({
  name: "pds oauth: a client key that is not the published one fails the client assertion",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world();
    const stranger = { ...w.client, key: await generateClientKey(new Date()) };
    await assert.rejects(
      startLogin(stranger, w.peer.handle, w.peer.origin, w.deps),
      (err) => err instanceof DeployError && err.code === "oauth_failed",
    );
    assert.ok(w.peer.refusals.some((r) => r.includes("invalid_client")));
  },
});

Deno.test({
  name: "pds oauth: no token, code or key appears in the log",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world({ accessTokenSeconds: 30 });
    const { session } = await w.login();
    const agent = await w.agent();
    await getRecord(agent, "site.standard.document", "x");
    const stored = (await w.store.read())!.session!;
    const text = w.lines.join("\n");
    assert.ok(text.includes("pds session refreshed"));
    for (
      const secret of [
        session.accessToken,
        session.refreshToken,
        stored.refreshToken,
        stored.dpopKey.d,
      ]
    ) {
      assert.ok(!text.includes(secret));
    }
  },
});

Deno.test({
  name: "pds oauth: a run that finds the token already rotated by another run uses that session",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world();
    await w.login();
    const ci = await w.agent();
    const laptop = await w.agent();
    w.peer.expireAccessTokens();
    await getRecord(ci, "site.standard.document", "x"); // refreshes and stores
    assert.equal(w.peer.refreshes, 1);
    // The laptop still holds the spent refresh token; spending it would revoke the session.
    await getRecord(laptop, "site.standard.document", "x");
    assert.equal(w.peer.refreshes, 1);
    assert.ok(!w.peer.refusals.some((r) => r.includes("replayed")));
  },
});
