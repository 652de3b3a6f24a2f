import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { FixedClock } from "@org/shared";
import {
  expectError,
  getNonce,
  mintIdToken,
  postForm,
  redeemIdToken,
} from "../support/id_tokens.ts";
import { type OidcFixture, startOidcProvider } from "../support/oidc.ts";
import { providerToml, startTokenServer, type TokenServer } from "../support/token_server.ts";

const ON = `[grants]\nid_token = true\n`;

const post = postForm;
const redeem = redeemIdToken;

function leftHalfHash(hash: string, value: string): string {
  const d = createHash(hash).update(value).digest();
  return d.subarray(0, d.length / 2).toString("base64url");
}

async function start(idp: OidcFixture, clock?: FixedClock, extra = ""): Promise<TokenServer> {
  return await startTokenServer({
    toml: providerToml("idp", idp.issuer) + ON + extra,
    ...(clock ? { clock } : {}),
  });
}

Deno.test("id_token grant: a nonce from /nonce echoed in a provider ID token yields our tokens", async () => {
  await using idp = await startOidcProvider();
  await using te = await start(idp);
  const nonceRes = await post(`${te.url}/nonce`);
  assert.equal(nonceRes.headers.get("cache-control"), "no-store");
  const minted = await nonceRes.json();
  assert.deepEqual(Object.keys(minted).sort(), ["expires_in", "nonce"]);
  assert.equal(minted.expires_in, 600);
  assert.match(minted.nonce, /^[A-Za-z0-9_-]{43}$/);

  const idToken = await mintIdToken(idp, { nonce: minted.nonce, name: "Alice" });
  const res = await redeem(te, { id_token: idToken });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.deepEqual(Object.keys(body).sort(), [
    "access_token",
    "expires_in",
    "refresh_token",
    "token_type",
  ]);
  assert.equal(body.token_type, "Bearer");
  assert.equal(body.expires_in, 900);
  assert.match(body.refresh_token, /^[A-Za-z0-9_-]{43}$/);
  const { payload } = await jwtVerify(
    body.access_token,
    createRemoteJWKSet(new URL(`${te.issuer}/keys`)),
    { issuer: te.issuer },
  );
  assert.match(String(payload.sub), /^usr_/);
  assert.match(String(payload.sid), /^ses_/);
  const user = await te.server.deps.store.users.get(String(payload.sub));
  assert.equal(user?.external_id, "alice-1");
  assert.equal(user?.display_name, "Alice");
});

Deno.test("id_token grant: the same identity via code exchange and ID token is one user", async () => {
  await using idp = await startOidcProvider();
  idp.server.service.on("beforeTokenSigning", (t: { payload: Record<string, unknown> }) => {
    if (t.payload.aud !== undefined) Object.assign(t.payload, { sub: "alice-1" });
  });
  await using te = await start(idp);
  const viaCode = await (await post(`${te.url}/token`, {
    grant_type: "authorization_code",
    code: "c",
    provider: "idp",
    redirect_uri: "https://app.example/cb",
  })).json();
  const viaIdToken = await (await redeem(te, {
    id_token: await mintIdToken(idp, { nonce: await getNonce(te) }),
  })).json();
  const jwks = createRemoteJWKSet(new URL(`${te.issuer}/keys`));
  const a = (await jwtVerify(viaCode.access_token, jwks)).payload;
  const b = (await jwtVerify(viaIdToken.access_token, jwks)).payload;
  assert.equal(a.sub, b.sub);
  assert.notEqual(a.sid, b.sid);
});

Deno.test("id_token grant: a nonce is single use, expires after 600 s, and must be ours", async (t) => {
  await using idp = await startOidcProvider();
  const clock = new FixedClock(Date.now());
  await using te = await start(idp, clock);

  await t.step("reused nonce → invalid_grant", async () => {
    const nonce = await getNonce(te);
    const first = await redeem(te, { id_token: await mintIdToken(idp, { nonce }, clock) });
    assert.equal(first.status, 200);
    await first.body?.cancel();
    const again = await mintIdToken(idp, { nonce, jti: "another-token" }, clock);
    await expectError(await redeem(te, { id_token: again }), 400, "invalid_grant");
  });
  await t.step("nonce expired (injected clock past 600 s) → invalid_grant", async () => {
    const nonce = await getNonce(te);
    clock.advance(600_000);
    const idToken = await mintIdToken(idp, { nonce }, clock);
    const why = await expectError(await redeem(te, { id_token: idToken }), 400, "invalid_grant");
    assert.match(why, /expired/);
  });
  await t.step("nonce still valid just before 600 s", async () => {
    const nonce = await getNonce(te);
    clock.advance(599_000);
    const res = await redeem(te, { id_token: await mintIdToken(idp, { nonce }, clock) });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
  await t.step("nonce never minted → invalid_grant", async () => {
    const idToken = await mintIdToken(idp, { nonce: "A".repeat(43) }, clock);
    await expectError(await redeem(te, { id_token: idToken }), 400, "invalid_grant");
  });
  await t.step("no nonce claim → invalid_grant", async () => {
    const idToken = await mintIdToken(idp, {}, clock);
    const why = await expectError(await redeem(te, { id_token: idToken }), 400, "invalid_grant");
    assert.match(why, /nonce/);
  });
  await t.step(
    "a provider that hashes the nonce (SHA-256, base64url or hex) is accepted",
    async () => {
      for (const encoding of ["base64url", "hex"] as const) {
        const nonce = await getNonce(te);
        const hashed = createHash("sha256").update(nonce).digest(encoding);
        const res = await redeem(te, {
          id_token: await mintIdToken(idp, { nonce: hashed }, clock),
        });
        assert.equal(res.status, 200, encoding);
        await res.body?.cancel();
        const replay = await mintIdToken(idp, { nonce, jti: `raw-after-${encoding}` }, clock);
        await expectError(await redeem(te, { id_token: replay }), 400, "invalid_grant");
      }
    },
  );
});

Deno.test("id_token grant: the same ID token is never redeemed twice", async (t) => {
  await using idp = await startOidcProvider();
  await using te = await start(idp);

  await t.step("replayed token (no jti) with a fresh nonce minted → invalid_grant", async () => {
    const idToken = await mintIdToken(idp, { nonce: await getNonce(te) });
    const first = await redeem(te, { id_token: idToken });
    assert.equal(first.status, 200);
    await first.body?.cancel();
    await getNonce(te);
    const why = await expectError(await redeem(te, { id_token: idToken }), 400, "invalid_grant");
    assert.match(why, /already been redeemed/);
  });
  await t.step(
    "another token with a used jti → invalid_grant, its nonce stays unused",
    async () => {
      const first = await redeem(te, {
        id_token: await mintIdToken(idp, { nonce: await getNonce(te), jti: "jti-1" }),
      });
      assert.equal(first.status, 200);
      await first.body?.cancel();
      const nonce = await getNonce(te);
      const sameJti = await mintIdToken(idp, { nonce, jti: "jti-1", sub: "mallory" });
      const why = await expectError(await redeem(te, { id_token: sameJti }), 400, "invalid_grant");
      assert.match(why, /already been redeemed/);
      // The refused attempt committed nothing: the nonce is still redeemable.
      const ok = await redeem(te, { id_token: await mintIdToken(idp, { nonce, jti: "jti-2" }) });
      assert.equal(ok.status, 200);
      await ok.body?.cancel();
    },
  );
});

Deno.test("id_token grant: a token signed with the provider's new key re-fetches its JWKS", async () => {
  await using idp = await startOidcProvider();
  const clock = new FixedClock(Date.now());
  await using te = await start(idp, clock);
  const first = await redeem(te, {
    id_token: await mintIdToken(idp, { nonce: await getNonce(te) }),
  });
  assert.equal(first.status, 200);
  await first.body?.cancel();
  const rotated = await idp.server.issuer.keys.generate("RS256");
  clock.advance(31_000); // past the re-fetch cooldown, well inside the JWKS cache's max age
  const idToken = await mintIdToken(idp, { nonce: await getNonce(te) }, clock, rotated.kid);
  const res = await redeem(te, { id_token: idToken });
  assert.equal(res.status, 200, JSON.stringify(await res.clone().json()));
  await res.body?.cancel();
});

Deno.test("id_token grant: ID tokens failing verification → invalid_grant", async (t) => {
  await using idp = await startOidcProvider();
  await using other = await startOidcProvider();
  await using te = await start(idp);
  // Whatever check fails, the caller sees one description; which one failed is logged only.
  const refused = async (idToken: string) => {
    const why = await expectError(await redeem(te, { id_token: idToken }), 400, "invalid_grant");
    assert.equal(why, "The ID token is not valid");
  };
  const now = Math.floor(Date.now() / 1000);

  await t.step("another issuer (claimed, or the other provider's own token)", async () => {
    await refused(await mintIdToken(idp, { nonce: await getNonce(te), iss: other.issuer }));
    await refused(await mintIdToken(other, { nonce: await getNonce(te) }));
  });
  await t.step("wrong audience", async () => {
    await refused(await mintIdToken(idp, { nonce: await getNonce(te), aud: "someone" }));
  });
  await t.step("several audiences without azp naming us", async () => {
    const aud = ["te-client", "someone"];
    await refused(await mintIdToken(idp, { nonce: await getNonce(te), aud }));
    const ok = await redeem(te, {
      id_token: await mintIdToken(idp, { nonce: await getNonce(te), aud, azp: "te-client" }),
    });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  });
  await t.step("iat older than grants.id_token_max_age (10 min)", async () => {
    const claims = { nonce: await getNonce(te), iat: now - 900, exp: now + 300 };
    await refused(await mintIdToken(idp, claims));
  });
  await t.step("iat in the future", async () => {
    await refused(await mintIdToken(idp, { nonce: await getNonce(te), iat: now + 600 }));
  });
  await t.step("signed by another provider's key under our issuer", async () => {
    await refused(await mintIdToken(other, { nonce: await getNonce(te), iss: idp.issuer }));
  });
  await t.step("tampered payload", async () => {
    const [h, , s] = (await mintIdToken(idp, { nonce: await getNonce(te) })).split(".");
    const forged = await mintIdToken(other, { nonce: await getNonce(te), iss: idp.issuer });
    await refused(`${h}.${forged.split(".")[1]}.${s}`);
  });
});

Deno.test("id_token grant: a malformed, expired or not-yet-valid ID token → 400 invalid_grant", async (t) => {
  await using idp = await startOidcProvider();
  await using te = await start(idp);
  // RFC 7521 §5.2: an assertion that is not valid is invalid_grant; a 401 from a token
  // endpoint would tell the client its own authentication failed (RFC 6749 §5.2).
  const rejected = async (idToken: string) => {
    const why = await expectError(await redeem(te, { id_token: idToken }), 400, "invalid_grant");
    assert.equal(why, "The ID token is not valid");
  };
  const now = Math.floor(Date.now() / 1000);

  await t.step("not a JWT at all", async () => {
    await rejected("not-a-jwt");
  });
  await t.step("three segments that do not decode", async () => {
    await rejected("eyJ%%%.bm9wZQ.c2ln");
    await rejected(`${btoa("{not json").replace(/=+$/, "")}.e30.c2ln`);
  });
  await t.step("expired (past exp and the clock skew)", async () => {
    await rejected(
      await mintIdToken(idp, { nonce: await getNonce(te), iat: now - 400, exp: now - 120 }),
    );
  });
  await t.step("not yet valid (nbf past the clock skew)", async () => {
    await rejected(await mintIdToken(idp, { nonce: await getNonce(te), nbf: now + 600 }));
  });
  await t.step("an old iat within exp", async () => {
    await rejected(
      await mintIdToken(idp, { nonce: await getNonce(te), iat: now - 900, exp: now + 300 }),
    );
  });
});

Deno.test("id_token grant: provider_access_token requires a matching at_hash", async (t) => {
  for (const alg of ["RS256", "ES384"] as const) {
    await t.step(alg, async (t) => {
      await using idp = await startOidcProvider(alg);
      await using te = await start(idp);
      const hash = alg === "RS256" ? "sha256" : "sha384";
      const accessToken = "ya29.provider-access-token";
      await t.step("at_hash matches → 200", async () => {
        const idToken = await mintIdToken(idp, {
          nonce: await getNonce(te),
          at_hash: leftHalfHash(hash, accessToken),
        });
        const res = await redeem(te, { id_token: idToken, provider_access_token: accessToken });
        assert.equal(res.status, 200);
        await res.body?.cancel();
      });
      await t.step("at_hash mismatches → invalid_grant", async () => {
        const idToken = await mintIdToken(idp, {
          nonce: await getNonce(te),
          at_hash: leftHalfHash(hash, "another-token"),
        });
        const res = await redeem(te, { id_token: idToken, provider_access_token: accessToken });
        assert.match(await expectError(res, 400, "invalid_grant"), /at_hash/);
      });
      await t.step("at_hash missing → invalid_grant", async () => {
        const idToken = await mintIdToken(idp, { nonce: await getNonce(te) });
        const res = await redeem(te, { id_token: idToken, provider_access_token: accessToken });
        assert.match(await expectError(res, 400, "invalid_grant"), /at_hash/);
      });
      await t.step("no provider_access_token → at_hash not checked", async () => {
        const idToken = await mintIdToken(idp, { nonce: await getNonce(te), at_hash: "bogus" });
        const res = await redeem(te, { id_token: idToken });
        assert.equal(res.status, 200);
        await res.body?.cancel();
      });
    });
  }
});

Deno.test("id_token grant: request errors and the registration policy", async (t) => {
  await using idp = await startOidcProvider();
  await using te = await start(idp, undefined, `[registration]\nmode = "existing_users_only"\n`);
  await t.step("missing id_token or provider, unknown provider → invalid_request", async () => {
    await expectError(await redeem(te, {}), 400, "invalid_request");
    const idToken = await mintIdToken(idp, { nonce: await getNonce(te) });
    await expectError(
      await post(`${te.url}/token`, { grant_type: "id_token", id_token: idToken }),
      400,
      "invalid_request",
    );
    await expectError(
      await redeem(te, { id_token: idToken, provider: "nope" }),
      400,
      "invalid_request",
    );
  });
  await t.step("a new user under existing_users_only → access_denied", async () => {
    const idToken = await mintIdToken(idp, { nonce: await getNonce(te) });
    await expectError(await redeem(te, { id_token: idToken }), 403, "access_denied");
  });
});

Deno.test("/nonce: POST only, no body, only the hash is stored", async () => {
  await using idp = await startOidcProvider();
  await using te = await start(idp);
  const get = await fetch(`${te.url}/nonce`);
  assert.equal(get.headers.get("allow"), "POST");
  await expectError(get, 405, "method_not_allowed");
  await expectError(
    await post(`${te.url}/nonce`, { foo: "bar" }),
    400,
    "invalid_request",
  );
  const empty = await post(`${te.url}/nonce`, {});
  assert.equal(empty.status, 200);
  const { nonce } = await empty.json();
  const stored = [];
  for await (const e of te.kv.list({ prefix: ["nonces"] })) stored.push(e);
  assert.equal(stored.length, 1);
  assert.equal(stored[0]!.key[1], createHash("sha256").update(nonce).digest("base64url"));
  assert.ok(!JSON.stringify(stored[0]!.value).includes(nonce));
});

Deno.test("id_token grant on: discovery lists id_token and its RFC 8693 form", async () => {
  await using idp = await startOidcProvider();
  await using te = await start(idp);
  const doc = await (await fetch(`${te.url}/.well-known/openid-configuration`)).json();
  assert.deepEqual(doc.grant_types_supported, [
    "authorization_code",
    "refresh_token",
    "id_token",
    "urn:ietf:params:oauth:grant-type:token-exchange",
  ]);
});

Deno.test("id_token grant off (default): /nonce is 404, id_token fields unsupported_grant_type", async () => {
  await using idp = await startOidcProvider();
  await using te = await startTokenServer({ toml: providerToml("idp", idp.issuer) });
  await expectError(await post(`${te.url}/nonce`), 404, "not_found");
  const idToken = await mintIdToken(idp, { nonce: "n" });
  await expectError(await redeem(te, { id_token: idToken }), 400, "unsupported_grant_type");
  await expectError(
    await post(`${te.url}/token`, {
      grant_type: "authorization_code",
      code: "c",
      provider: "idp",
      redirect_uri: "https://app.example/cb",
      id_token: idToken,
    }),
    400,
    "unsupported_grant_type",
  );
  const doc = await (await fetch(`${te.url}/.well-known/openid-configuration`)).json();
  assert.deepEqual(doc.grant_types_supported, ["authorization_code", "refresh_token"]);
});
