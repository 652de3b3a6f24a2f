import assert from "node:assert/strict";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { FixedClock, seededRandom, silentLogger } from "@org/shared";
import { testUser } from "../tests/support/users.ts";
import { resolveConfig } from "./config/resolve.ts";
import { NONCE_WINDOW_SECONDS } from "./dpop/nonce.ts";
import { createPublicHandler } from "./endpoints/public_handler.ts";
import { startSession } from "./grants/issue_tokens.ts";
import { tokenHash } from "./sessions/opaque_token.ts";
import { buildService } from "./service.ts";
import { createKvStore } from "./store/kv_store.ts";

const ISSUER = "https://te.example";
const INFO = { remoteAddr: { hostname: "127.0.0.1", port: 40000 } };

Deno.test("buildService: /token and /sessions share one DPoP nonce cache (one secret read)", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = new FixedClock(1_700_000_000_000);
    const store = createKvStore(kv, clock);
    let secretReads = 0;
    const dpop = {
      markProofUsed: store.dpop.markProofUsed.bind(store.dpop),
      nonceSecret: (candidate: string) => {
        secretReads++;
        return store.dpop.nonceSecret(candidate);
      },
    };
    const resolved = resolveConfig({ server: { issuer: ISSUER } }, {});
    if ("errors" in resolved) throw new Error(JSON.stringify(resolved.errors));
    const deps = await buildService(resolved.config, ISSUER, {
      store: { ...store, dpop },
      clock,
      random: seededRandom("service"),
      log: silentLogger,
      fetch: () => Promise.reject(new Error("no provider in this test")),
      readKeyFile: () => Promise.reject(new Error("no key file in this test")),
    });
    const handler = createPublicHandler(deps);
    const user = testUser(1, clock.now());
    await deps.store.users.create(user);
    const keys = await generateKeyPair("EdDSA");
    const jwk = await exportJWK(keys.publicKey);
    const session = await startSession(
      deps,
      user,
      "ses_00000000000000000000000001",
      await calculateJwkThumbprint(jwk),
    );
    const access = session.access_token;
    let refresh = session.refresh_token!;
    const proof = (htm: string, htu: string, nonce?: string, ath?: string) =>
      signedProof(keys.privateKey, jwk, clock, { htm, htu, nonce, ath });
    const toToken = async (nonce?: string) => {
      const res = await handler(
        new Request(`${ISSUER}/token`, {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            dpop: await proof("POST", `${ISSUER}/token`, nonce),
          },
          body: `grant_type=refresh_token&refresh_token=${refresh}`,
        }),
        INFO,
      );
      const body = await res.json();
      if (res.status === 200) refresh = body.refresh_token;
      return { status: res.status, error: body.error, nonce: res.headers.get("dpop-nonce") };
    };
    const toSessions = async (nonce?: string) => {
      const res = await handler(
        new Request(`${ISSUER}/sessions`, {
          headers: {
            authorization: `DPoP ${access}`,
            dpop: await proof("GET", `${ISSUER}/sessions`, nonce, tokenHash(access)),
          },
        }),
        INFO,
      );
      const body = await res.json();
      return { status: res.status, error: body.error, nonce: res.headers.get("dpop-nonce") };
    };

    // /token hands out the nonce; /sessions accepts it.
    const handedOut = await toToken();
    assert.equal(handedOut.status, 400);
    assert.equal(handedOut.error, "use_dpop_nonce");
    assert.equal((await toSessions(handedOut.nonce!)).status, 200);
    // /sessions hands out the nonce; /token accepts it, and answers with the same one.
    const asked = await toSessions();
    assert.equal(asked.status, 401);
    assert.equal(asked.nonce, handedOut.nonce);
    const rotated = await toToken(asked.nonce!);
    assert.equal(rotated.status, 200);
    assert.equal(rotated.nonce, handedOut.nonce);
    // The next window: a new nonce from both routes, the previous one still good on both.
    clock.advance(NONCE_WINDOW_SECONDS * 1000);
    const next = await toSessions();
    assert.notEqual(next.nonce, handedOut.nonce);
    assert.equal((await toToken(handedOut.nonce!)).nonce, next.nonce);
    assert.equal((await toSessions(handedOut.nonce!)).status, 200);
    assert.equal((await toToken(next.nonce!)).status, 200);
    // Both routes, two windows: the process read the secret once.
    assert.equal(secretReads, 1);
  } finally {
    kv.close();
  }
});

/** A fresh DPoP proof by `key` (its public `jwk` in the header) at the clock's time. */
function signedProof(
  key: CryptoKey,
  jwk: JWK,
  clock: FixedClock,
  claims: { htm: string; htu: string; nonce?: string | undefined; ath?: string | undefined },
): Promise<string> {
  return new SignJWT({
    ...claims,
    jti: crypto.randomUUID(),
    iat: Math.floor(clock.now() / 1000),
  })
    .setProtectedHeader({ alg: "EdDSA", typ: "dpop+jwt", jwk })
    .sign(key);
}
