import assert from "node:assert/strict";
import { FixedClock } from "@org/shared";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { OAuthError } from "../errors.ts";
import { JwksCache } from "./jwks_cache.ts";
import { verifyIdToken } from "./id_token.ts";

async function key(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256" } };
}

Deno.test("JwksCache re-fetches once on an unknown kid, then only after the cooldown", async () => {
  const clock = new FixedClock();
  const k1 = await key("k1");
  const k2 = await key("k2");
  let published = [k1.jwk];
  let fetches = 0;
  const cache = new JwksCache("https://idp.example/jwks", {
    clock,
    timeoutSeconds: 5,
    cooldownSeconds: 30,
    fetch: () => {
      fetches++;
      return Promise.resolve(Response.json({ keys: published }));
    },
  });
  const sign = (k: typeof k1, sub: string) =>
    new SignJWT({ sub }).setProtectedHeader({ alg: "ES256", kid: k.jwk.kid })
      .setIssuer("https://idp.example").setAudience("c").setIssuedAt(Math.floor(clock.now() / 1000))
      .setExpirationTime("5m").sign(k.privateKey);
  const expect = { issuer: "https://idp.example", clientId: "c", now: clock.now() };

  await verifyIdToken(await sign(k1, "a"), cache.getKey, expect);
  assert.equal(fetches, 1);
  clock.advance(31_000);
  published = [k1.jwk, k2.jwk]; // upstream rotation
  const claims = await verifyIdToken(await sign(k2, "b"), cache.getKey, {
    ...expect,
    now: clock.now(),
  });
  assert.equal(claims.sub, "b");
  assert.equal(fetches, 2);
  // A burst of unknown kids inside the cooldown does not hammer the provider.
  const bogus = await key("bogus");
  for (let i = 0; i < 5; i++) {
    await assert.rejects(
      verifyIdToken(await sign(bogus, "x"), cache.getKey, { ...expect, now: clock.now() }),
    );
  }
  assert.equal(fetches, 2);
});

Deno.test("JwksCache: a provider JWKS with malformed entries is a 502 server_error, not a 500", async () => {
  const clock = new FixedClock();
  const k1 = await key("k1");
  const token = await new SignJWT({ sub: "a" }).setProtectedHeader({ alg: "ES256", kid: "k1" })
    .setIssuer("https://idp.example").setAudience("c").setIssuedAt(Math.floor(clock.now() / 1000))
    .setExpirationTime("5m").sign(k1.privateKey);
  const expect = { issuer: "https://idp.example", clientId: "c", now: clock.now() };
  const is502 = (err: unknown) =>
    err instanceof OAuthError && err.status === 502 && err.code === "server_error";
  for (
    const keys of [
      [1, "not a key"], // entries that are not objects: createLocalJWKSet throws
      [{ ...k1.jwk, x: "!!!", y: "???" }], // the matching entry cannot be imported
    ]
  ) {
    const cache = new JwksCache("https://idp.example/jwks", {
      clock,
      timeoutSeconds: 5,
      fetch: () => Promise.resolve(Response.json({ keys })),
    });
    await assert.rejects(verifyIdToken(token, cache.getKey, expect), is502, JSON.stringify(keys));
  }
});
