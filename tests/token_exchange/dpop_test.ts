/**
 * DPoP (RFC 9449) on `POST /token`, driven by `oauth4webapi`'s DPoP support as the client:
 * binding a session to the proof's key, the server nonce, and every way a proof is refused.
 */
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { calculateJwkThumbprint, decodeJwt, exportJWK } from "jose";
import { type OidcFixture, startOidcProvider } from "../support/oidc.ts";
import { internalToml, SECRET } from "../support/internal_api.ts";
import { providerToml, startTokenServer, type TokenServer } from "../support/token_server.ts";

const client: oauth.Client = { client_id: "app" };
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const CODE = { code: "c", provider: "idp", redirect_uri: "https://app.example/cb" };

interface Harness extends AsyncDisposable {
  readonly te: TokenServer;
  readonly as: oauth.AuthorizationServer;
}

async function harness(toml = ""): Promise<Harness> {
  const idp: OidcFixture = await startOidcProvider();
  const te = await startTokenServer({ toml: providerToml("idp", idp.issuer) + toml });
  const url = new URL(te.issuer);
  const as = await oauth.processDiscoveryResponse(
    url,
    await oauth.discoveryRequest(url, { algorithm: "oidc", ...insecure }),
  );
  return {
    te,
    as,
    async [Symbol.asyncDispose]() {
      await te.close();
      await idp.close();
    },
  };
}

/** A DPoP key and the client's handle for it (ES256 unless `alg` says otherwise). */
async function dpopKey(alg = "ES256", c: oauth.Client = client) {
  const keys = await oauth.generateKeyPair(alg);
  const jkt = await calculateJwkThumbprint(await exportJWK(keys.publicKey));
  return { handle: oauth.DPoP(c, keys), jkt };
}

type Options = oauth.TokenEndpointRequestOptions;

/** Options sending proofs of `handle`, keeping the `DPoP` header last sent (to replay it). */
function capturingProofs(handle: oauth.DPoPHandle): { options: Options; sent: () => string } {
  let sent = "";
  return {
    options: {
      DPoP: handle,
      [oauth.customFetch]: (url, init) => {
        sent = new Headers(init.headers).get("dpop") ?? "";
        return fetch(url, init);
      },
    },
    sent: () => sent,
  };
}

/** A refresh sent by hand with `proof` as its `DPoP` header (a replay). */
function refreshWithProof(h: Harness, proof: string, refreshToken: string): Promise<Response> {
  return fetch(h.as.token_endpoint!, {
    method: "POST",
    headers: { dpop: proof, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken }),
  });
}

/** One raw `/token` request. */
function request(
  h: Harness,
  grantType: string,
  params: Record<string, string>,
  options: Options = {},
): Promise<Response> {
  return oauth.genericTokenEndpointRequest(h.as, client, oauth.None(), grantType, params, {
    ...insecure,
    ...options,
  });
}

/**
 * A `/token` request that must succeed, retried once when the server asks for its nonce
 * (as an app does: the handle keeps the nonce from the `DPoP-Nonce` header).
 */
async function tokens(
  h: Harness,
  grantType: string,
  params: Record<string, string>,
  options: Options = {},
): Promise<oauth.TokenEndpointResponse> {
  try {
    return await oauth.processGenericTokenEndpointResponse(
      h.as,
      client,
      await request(h, grantType, params, options),
    );
  } catch (err) {
    if (!oauth.isDPoPNonceError(err)) throw err;
    return await oauth.processGenericTokenEndpointResponse(
      h.as,
      client,
      await request(h, grantType, params, options),
    );
  }
}

/** The `error` and `error_description` of a refused request. */
async function refusal(res: Promise<Response>): Promise<[number, string, string]> {
  const r = await res;
  const body = await r.json();
  return [r.status, body.error, body.error_description];
}

Deno.test("dpop: a proof binds the session; refresh needs the same key, revocation none", async () => {
  await using h = await harness(internalToml());
  assert.deepEqual(h.as.dpop_signing_alg_values_supported, ["ES256", "ES384", "EdDSA", "Ed25519"]);
  const key = await dpopKey();
  const first = await tokens(h, "authorization_code", CODE, { DPoP: key.handle });
  assert.equal(first.token_type, "dpop");
  assert.deepEqual(decodeJwt(first.access_token).cnf, { jkt: key.jkt });

  const next = await tokens(h, "refresh_token", { refresh_token: first.refresh_token! }, {
    DPoP: key.handle,
  });
  assert.equal(next.token_type, "dpop");
  assert.deepEqual(decodeJwt(next.access_token).cnf, { jkt: key.jkt });

  // Without a proof, and with another key: refused, and the session lives on.
  const stolen = { refresh_token: next.refresh_token! };
  assert.deepEqual(await refusal(request(h, "refresh_token", stolen)), [
    400,
    "invalid_grant",
    "The refresh token is bound to a DPoP key; send a DPoP proof signed by that key",
  ]);
  const thief = await dpopKey();
  await tokens(h, "authorization_code", CODE, { DPoP: thief.handle }); // gets a nonce
  assert.deepEqual(
    await refusal(request(h, "refresh_token", stolen, { DPoP: thief.handle })),
    [
      400,
      "invalid_grant",
      "The refresh token is bound to a different DPoP key than the one that signed the proof",
    ],
  );
  const third = await tokens(h, "refresh_token", stolen, { DPoP: key.handle });

  // Introspection names the key, for the access and the refresh token.
  const introspect = async (token: string) => {
    const res = await fetch(`${h.te.internalUrl}/internal/introspect`, {
      method: "POST",
      headers: { authorization: `Bearer ${SECRET}` },
      body: new URLSearchParams({ token }),
    });
    return await res.json();
  };
  const access = await introspect(third.access_token);
  assert.equal(access.token_type, "DPoP");
  assert.deepEqual(access.cnf, { jkt: key.jkt });
  assert.deepEqual((await introspect(third.refresh_token!)).cnf, { jkt: key.jkt });

  // Revocation takes no proof.
  const revoked = await oauth.revocationRequest(
    h.as,
    client,
    oauth.None(),
    third.refresh_token!,
    insecure,
  );
  assert.equal(revoked.status, 200);
  assert.deepEqual(
    (await refusal(request(h, "refresh_token", {
      refresh_token: third.refresh_token!,
    }, { DPoP: key.handle })))[1],
    "invalid_grant",
  );
});

Deno.test("dpop: a proof without the server nonce gets use_dpop_nonce and the nonce", async () => {
  await using h = await harness();
  const key = await dpopKey("EdDSA");
  const res = await request(h, "authorization_code", CODE, { DPoP: key.handle });
  const nonce = res.headers.get("dpop-nonce");
  assert.match(nonce ?? "", /^[A-Za-z0-9_-]{43}$/);
  const [status, error] = await refusal(Promise.resolve(res));
  assert.deepEqual([status, error], [400, "use_dpop_nonce"]);
  // The handle kept the nonce: the same request now passes, bound to the Ed25519 key.
  const t = await tokens(h, "authorization_code", CODE, { DPoP: key.handle });
  assert.deepEqual(decodeJwt(t.access_token).cnf, { jkt: key.jkt });
});

Deno.test("dpop: a replayed proof is refused, even for another grant, with the current nonce", async () => {
  await using h = await harness();
  const key = await dpopKey();
  const { options: capture, sent } = capturingProofs(key.handle);
  const t = await tokens(h, "authorization_code", CODE, capture);
  assert.ok(sent());
  const replay = await refreshWithProof(h, sent(), t.refresh_token!);
  // A refused proof's answer carries the nonce too, so the client's next proof can pass.
  assert.match(replay.headers.get("dpop-nonce") ?? "", /^[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(await refusal(Promise.resolve(replay)), [
    400,
    "invalid_dpop_proof",
    "This DPoP proof was already used; sign a new one for every request",
  ]);
});

Deno.test("dpop: a proof used by a refresh, or by a refused one, is spent; its replay changes nothing", async () => {
  await using h = await harness();
  const key = await dpopKey("EdDSA");
  const t = await tokens(h, "authorization_code", CODE, { DPoP: key.handle });
  const { options: capture, sent } = capturingProofs(key.handle);
  const used = "This DPoP proof was already used; sign a new one for every request";

  // The proof of a rotation, replayed with the token it produced: refused, nothing rotated.
  const second = await tokens(h, "refresh_token", { refresh_token: t.refresh_token! }, capture);
  assert.deepEqual(await refusal(refreshWithProof(h, sent(), second.refresh_token!)), [
    400,
    "invalid_dpop_proof",
    used,
  ]);

  // A refresh refused for its token still spends its proof.
  const refused = await request(h, "refresh_token", { refresh_token: "x".repeat(43) }, capture);
  assert.equal((await refused.json()).error, "invalid_grant");
  assert.deepEqual(await refusal(refreshWithProof(h, sent(), second.refresh_token!)), [
    400,
    "invalid_dpop_proof",
    used,
  ]);

  // The token the replays carried is still live: it rotates once, with a fresh proof.
  const third = await tokens(h, "refresh_token", { refresh_token: second.refresh_token! }, {
    DPoP: key.handle,
  });
  assert.notEqual(third.refresh_token, second.refresh_token);
});

Deno.test("dpop: an expired proof and a proof for another URL are refused", async () => {
  await using h = await harness();
  // The client's clock ten minutes behind: its proofs' iat is too old (checked before the nonce).
  const late = await dpopKey("ES256", { ...client, [oauth.clockSkew]: -600 });
  const [status, error, description] = await refusal(
    request(h, "authorization_code", CODE, { DPoP: late.handle }),
  );
  assert.deepEqual([status, error], [400, "invalid_dpop_proof"]);
  assert.match(description, /iat/);

  // A proof made for https://elsewhere.example/token, delivered to our token endpoint.
  const key = await dpopKey();
  const elsewhere = { ...h.as, token_endpoint: "https://elsewhere.example/token" };
  const redirect: Options = {
    DPoP: key.handle,
    [oauth.customFetch]: (_url, init) => fetch(h.as.token_endpoint!, init),
  };
  const send = () =>
    oauth.genericTokenEndpointRequest(elsewhere, client, oauth.None(), "authorization_code", CODE, {
      ...insecure,
      ...redirect,
    });
  assert.deepEqual(await refusal(send()), [
    400,
    "invalid_dpop_proof",
    `The DPoP proof's htu must be ${h.as.token_endpoint}`,
  ]);
});

Deno.test("dpop: optional issues Bearer without a proof; required refuses it; off ignores proofs", async () => {
  {
    await using h = await harness();
    const t = await tokens(h, "authorization_code", CODE);
    assert.equal(t.token_type, "bearer");
    assert.equal(decodeJwt(t.access_token).cnf, undefined);
  }
  {
    await using h = await harness(`[token]\ndpop = "required"\n`);
    const bare = await request(h, "authorization_code", CODE);
    assert.match(bare.headers.get("dpop-nonce") ?? "", /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(await refusal(Promise.resolve(bare)), [
      400,
      "invalid_dpop_proof",
      "This server requires a DPoP proof (RFC 9449) on /token",
    ]);
    const key = await dpopKey();
    assert.equal(
      (await tokens(h, "authorization_code", CODE, { DPoP: key.handle })).token_type,
      "dpop",
    );
  }
  {
    await using h = await harness(`[token]\ndpop = "off"\n`);
    assert.equal(h.as.dpop_signing_alg_values_supported, undefined);
    const key = await dpopKey();
    const res = await request(h, "authorization_code", CODE, { DPoP: key.handle });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("dpop-nonce"), null);
    const t = await res.json();
    assert.equal(t.token_type, "Bearer");
    assert.equal(decodeJwt(t.access_token).cnf, undefined);
  }
});

Deno.test("dpop: a rotated bound token without the key trips no reuse alarm; with the key it does", async () => {
  await using h = await harness(`[token]\nrefresh_grace = "0s"\n`);
  const key = await dpopKey();
  const first = await tokens(h, "authorization_code", CODE, { DPoP: key.handle });
  const old = { refresh_token: first.refresh_token! };
  const second = await tokens(h, "refresh_token", old, { DPoP: key.handle });

  // The retired token replayed without a proof: refused as bound, the session lives on.
  assert.equal(
    (await refusal(request(h, "refresh_token", old)))[2],
    "The refresh token is bound to a DPoP key; send a DPoP proof signed by that key",
  );
  const third = await tokens(h, "refresh_token", { refresh_token: second.refresh_token! }, {
    DPoP: key.handle,
  });

  // Replayed by the key holder: that is reuse, and the session is revoked.
  assert.equal(
    (await refusal(request(h, "refresh_token", old, { DPoP: key.handle })))[1],
    "invalid_grant",
  );
  assert.equal(
    (await refusal(request(h, "refresh_token", { refresh_token: third.refresh_token! }, {
      DPoP: key.handle,
    })))[2],
    "The refresh token is invalid, expired or revoked",
  );
});

/** The size of the request head (request line and header lines) Deno's HTTP server reads. */
const HEAD_LIMIT = 64 * 1024;

Deno.test("dpop: any header the service can read gets the JSON answer; past the runtime's 64 KiB head limit the bare 400 documented", async () => {
  await using h = await harness();
  const url = `${h.te.issuer}/token`;
  const form = { grant_type: "refresh_token", refresh_token: "x" };
  // A 60,000-character proof fits the head: the service reads it and answers as documented.
  const big = await fetch(url, {
    method: "POST",
    headers: { dpop: "a".repeat(60_000) },
    body: new URLSearchParams(form),
  });
  assert.deepEqual([big.status, (await big.json()).error], [400, "invalid_dpop_proof"]);
  assert.ok(big.headers.get("dpop-nonce"), "the nonce comes with the refusal");
  // Any other header the service can read leaves the request to its own rules.
  const junk = await fetch(url, {
    method: "POST",
    headers: { "x-junk": "b".repeat(60_000) },
    body: new URLSearchParams(form),
  });
  assert.deepEqual([junk.status, (await junk.json()).error], [400, "invalid_grant"]);
  // Past the head limit the runtime refuses before any code of ours runs: 400, empty body,
  // `Connection: close`, no DPoP-Nonce (docs/http-api.md, "Request size limits").
  for (const [name, size] of [["dpop", 100_000], ["x-junk", HEAD_LIMIT]] as const) {
    const { hostname, port } = new URL(h.te.issuer);
    const conn = await Deno.connect({ hostname, port: Number(port) });
    try {
      await conn.write(new TextEncoder().encode(
        `POST /token HTTP/1.1\r\nhost: ${hostname}\r\n${name}: ${"c".repeat(size)}\r\n` +
          `content-type: application/x-www-form-urlencoded\r\ncontent-length: 0\r\n\r\n`,
      ));
      const chunks: Uint8Array[] = [];
      const buf = new Uint8Array(4096);
      // The server closes with our bytes unread, so the close may come as a reset.
      for (let n; (n = await conn.read(buf).catch(() => null)) !== null;) {
        chunks.push(buf.slice(0, n));
      }
      const text = new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
      const [head, body] = text.split("\r\n\r\n");
      assert.match(head!, /^HTTP\/1\.1 400 /, `${name} ${size}`);
      assert.match(head!, /\r\ncontent-length: 0\r\n/i);
      assert.match(head!, /\r\nconnection: close/i);
      assert.doesNotMatch(head!, /dpop-nonce/i);
      assert.equal(body, "");
    } finally {
      conn.close();
    }
  }
});
