import assert from "node:assert/strict";
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  type JWK,
  type JWTPayload,
  SignJWT,
} from "jose";
import { OAuthError } from "../errors.ts";
import { normaliseHtu, verifyDpopProof } from "./proof.ts";

const NOW = 1_700_000_000_000;
const HTU = "https://auth.example/token";
const expect = { method: "POST", htu: HTU, now: NOW };

const es256 = await generateKeyPair("ES256", { extractable: true });
const ed = await generateKeyPair("EdDSA", { extractable: true });
const es256Jwk = await exportJWK(es256.publicKey);

async function proof(
  options: {
    claims?: Record<string, unknown>;
    header?: Record<string, unknown>;
    alg?: string;
    key?: CryptoKey;
    jwk?: JWK;
  } = {},
): Promise<string> {
  return await new SignJWT({
    jti: crypto.randomUUID(),
    htm: "POST",
    htu: HTU,
    iat: NOW / 1000,
    ...options.claims as JWTPayload,
  })
    .setProtectedHeader({
      alg: options.alg ?? "ES256",
      typ: "dpop+jwt",
      jwk: options.jwk ?? es256Jwk,
      ...options.header,
    })
    .sign(options.key ?? es256.privateKey);
}

async function refusal(value: string | Promise<string>): Promise<string> {
  try {
    await verifyDpopProof(await value, expect);
  } catch (err) {
    assert.ok(err instanceof OAuthError);
    assert.equal(err.code, "invalid_dpop_proof");
    assert.equal(err.status, 400);
    return err.description;
  }
  throw new Error("the proof was accepted");
}

Deno.test("verifyDpopProof() accepts an ES256 proof and answers its key's thumbprint", async () => {
  const p = await verifyDpopProof(await proof({ claims: { nonce: "n1" } }), expect);
  assert.equal(p.jkt, await calculateJwkThumbprint(es256Jwk));
  assert.equal(p.nonce, "n1");
});

Deno.test("verifyDpopProof() accepts an EdDSA proof", async () => {
  const jwk = await exportJWK(ed.publicKey);
  const p = await verifyDpopProof(await proof({ alg: "EdDSA", key: ed.privateKey, jwk }), expect);
  assert.equal(p.jkt, await calculateJwkThumbprint(jwk));
});

Deno.test("verifyDpopProof() refuses a wrong typ, a symmetric alg and a missing jwk", async () => {
  assert.match(await refusal(proof({ header: { typ: "JWT" } })), /typ must be "dpop\+jwt"/);
  const hs = await new SignJWT({ jti: "j", htm: "POST", htu: HTU, iat: NOW / 1000 })
    .setProtectedHeader({ alg: "HS256", typ: "dpop+jwt", jwk: es256Jwk })
    .sign(new Uint8Array(32));
  assert.match(await refusal(hs), /alg must be one of ES256, ES384, EdDSA, Ed25519/);
  assert.match(await refusal(proof({ header: { jwk: undefined } })), /carries no jwk/);
});

Deno.test("verifyDpopProof() refuses a proof whose jwk is a private key", async () => {
  const priv = await exportJWK(es256.privateKey);
  assert.match(await refusal(proof({ jwk: priv })), /must be a public key/);
});

Deno.test("verifyDpopProof() refuses a jwk that is no key for its alg", async () => {
  const bogus = { kty: "EC", crv: "P-256", x: "AAAA", y: "BBBB" };
  // Deno imports bad EC coordinates lazily: then the signature check refuses them.
  assert.match(await refusal(proof({ jwk: bogus })), /not a valid public key|does not verify/);
  const ed = await exportJWK((await generateKeyPair("EdDSA")).publicKey);
  assert.match(await refusal(proof({ jwk: ed })), /not a valid public key/);
});

Deno.test("verifyDpopProof() refuses a signature by another key than the jwk", async () => {
  const other = await generateKeyPair("ES256");
  assert.match(await refusal(proof({ key: other.privateKey })), /signature does not verify/);
});

Deno.test("verifyDpopProof() refuses a wrong htm, a wrong htu and a missing jti", async () => {
  assert.match(await refusal(proof({ claims: { htm: "GET" } })), /htm must be POST/);
  assert.match(
    await refusal(proof({ claims: { htu: "https://evil.example/token" } })),
    /htu must be https:\/\/auth\.example\/token/,
  );
  assert.match(await refusal(proof({ claims: { jti: undefined } })), /needs a jti/);
});

Deno.test("verifyDpopProof() compares htu normalised, ignoring query and fragment", async () => {
  for (const htu of ["HTTPS://Auth.Example:443/token", "https://auth.example/token?x=1#f"]) {
    await verifyDpopProof(await proof({ claims: { htu } }), expect);
  }
  assert.equal(normaliseHtu("https://auth.example/a/../token"), HTU);
});

Deno.test("verifyDpopProof() refuses an iat more than 300 s old or 60 s ahead", async () => {
  await verifyDpopProof(await proof({ claims: { iat: NOW / 1000 - 299 } }), expect);
  assert.match(await refusal(proof({ claims: { iat: NOW / 1000 - 301 } })), /iat/);
  assert.match(await refusal(proof({ claims: { iat: NOW / 1000 + 61 } })), /iat/);
});

Deno.test("verifyDpopProof() refuses two DPoP headers and something that is not a JWT", async () => {
  const p = await proof();
  assert.match(await refusal(`${p}, ${p}`), /exactly one DPoP header/);
  assert.match(await refusal("not-a-jwt"), /not a JWT/);
});

Deno.test("verifyDpopProof() refuses a critical header extension and an expired exp", async () => {
  assert.match(
    await refusal(proof({ header: { crit: ["b64"], b64: true } })),
    /critical extension/,
  );
  assert.match(await refusal(proof({ claims: { exp: NOW / 1000 - 1 } })), /exp or nbf/);
  assert.match(await refusal(proof({ claims: { nbf: NOW / 1000 + 60 } })), /exp or nbf/);
});

Deno.test("verifyDpopProof() checks each proof of one header: the cached key verifies only its own signatures", async () => {
  const first = await proof({ claims: { nonce: "a" } });
  const second = await proof({ claims: { nonce: "b" } });
  assert.equal((await verifyDpopProof(first, expect)).nonce, "a");
  assert.equal((await verifyDpopProof(second, expect)).nonce, "b");
  // The same header (cached) with another proof's signature: refused.
  const [h, p] = second.split(".");
  const forged = `${h}.${p}.${first.split(".")[2]}`;
  assert.match(await refusal(forged), /signature does not verify/);
});

Deno.test("verifyDpopProof() checks an Ed25519 signature: only the jwk's own, under either alg name", async () => {
  const jwk = await exportJWK(ed.publicKey);
  const other = await generateKeyPair("EdDSA");
  for (const alg of ["EdDSA", "Ed25519"]) {
    const good = await proof({ alg, key: ed.privateKey, jwk, claims: { nonce: alg } });
    assert.equal((await verifyDpopProof(good, expect)).nonce, alg);
    // Signed by another Ed25519 key than the header's jwk.
    assert.match(
      await refusal(proof({ alg, key: other.privateKey, jwk })),
      /signature does not verify/,
    );
    // The header's (cached) key with another proof's signature, a flipped bit, none, a short one.
    const [h, p, s] = good.split(".") as [string, string, string];
    const another = (await proof({ alg, key: ed.privateKey, jwk })).split(".")[2];
    const bytes = Uint8Array.fromBase64(s, { alphabet: "base64url" });
    bytes[10]! ^= 1;
    for (
      const sig of [
        another,
        bytes.toBase64({ alphabet: "base64url", omitPadding: true }),
        "",
        "AAAA",
      ]
    ) {
      assert.match(await refusal(`${h}.${p}.${sig}`), /signature does not verify/);
    }
  }
});
