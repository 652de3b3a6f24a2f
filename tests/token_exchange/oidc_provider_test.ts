/**
 * The token service against `oidc-provider` (panva, OpenID Certified), an upstream provider we
 * did not write: every code and ID token here comes from its own authorization endpoint, after
 * its login and consent pages.
 */
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import { FixedClock } from "@org/shared";
import { atHash } from "../../server/grants/at_hash.ts";
import { expectError, getNonce, postForm } from "../support/id_tokens.ts";
import {
  type OidcProviderPeer,
  type OidcProviderPeerOptions,
  OTHER_CLIENT,
  PEER_CLIENT,
  startOidcProviderPeer,
} from "../support/oidc_provider.ts";
import { providerToml, startTokenServer, type TokenServer } from "../support/token_server.ts";
import { waitFor } from "../support/wait.ts";

const REDIRECT = PEER_CLIENT.redirect_uri;

/** The provider, the token service in front of it (ID-token grant on), torn down together. */
async function setup(
  options: {
    clock?: FixedClock;
    provider?: OidcProviderPeerOptions;
    secret?: string;
    toml?: string;
  } = {},
) {
  const idp = await startOidcProviderPeer(options.provider);
  const te = await startTokenServer({
    toml: providerToml("idp", idp.issuer).replace("te-secret", options.secret ?? "te-secret") +
      `[grants]\nid_token = true\n` + (options.toml ?? ""),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const close = async () => {
    await te.close();
    await idp.close();
  };
  return { idp, te, [Symbol.asyncDispose]: close };
}

/** Signs `account` in at the provider for a code, with an S256 challenge for `verifier`. */
async function codeFor(
  idp: OidcProviderPeer,
  verifier: string,
  account = "alice-1",
  client: { client_id: string; redirect_uri: string } = PEER_CLIENT,
): Promise<string> {
  const callback = await idp.signIn({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: client.redirect_uri,
    scope: "openid email profile",
    state: "st",
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  }, account);
  assert.equal(callback.searchParams.get("state"), "st");
  assert.equal(callback.searchParams.get("iss"), idp.issuer);
  const code = callback.searchParams.get("code");
  assert.ok(code, `no code in ${callback}`);
  return code;
}

/** `POST /token` with the code exchange's parameters. */
function redeemCode(te: TokenServer, code: string, verifier: string, redirect: string = REDIRECT) {
  return postForm(`${te.url}/token`, {
    grant_type: "authorization_code",
    code,
    provider: "idp",
    redirect_uri: redirect,
    code_verifier: verifier,
  });
}

/** Verifies our access token and returns the user it names. */
async function userOf(te: TokenServer, res: Response) {
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  const { payload } = await jwtVerify(
    body.access_token,
    createRemoteJWKSet(new URL(`${te.issuer}/keys`)),
    { issuer: te.issuer },
  );
  return await te.server.deps.store.users.get(String(payload.sub));
}

Deno.test("oidc-provider: a code from its login and consent, redeemed with the PKCE verifier, signs the user in", async () => {
  // Its ID token carries no email (OpenID Core §5.4): the allow-list passes on UserInfo's.
  await using s = await setup({ toml: `[registration]\ndomain_allowlist = ["example.com"]\n` });
  const verifier = oauth.generateRandomCodeVerifier();
  const user = await userOf(s.te, await redeemCode(s.te, await codeFor(s.idp, verifier), verifier));
  assert.equal(user?.provider, "idp");
  assert.equal(user?.external_id, "alice-1");
  assert.equal(user?.email, "alice-1@example.com");
  assert.equal(user?.display_name, "Alice-1");
});

Deno.test("oidc-provider: the ID-token grant takes its ID token with our nonce and at_hash", async (t) => {
  await using s = await setup();
  /** The app's implicit sign-in (`id_token token`) at the provider with our nonce. */
  const implicit = async (nonce: string, extra: Record<string, string> = {}, account?: string) => {
    const callback = await s.idp.signIn({
      response_type: "id_token token",
      client_id: PEER_CLIENT.client_id,
      redirect_uri: REDIRECT,
      scope: "openid email profile",
      state: "st",
      nonce,
      ...extra,
    }, account);
    const fragment = new URLSearchParams(callback.hash.slice(1));
    const idToken = fragment.get("id_token");
    const accessToken = fragment.get("access_token");
    assert.ok(idToken && accessToken, `no tokens in ${callback}`);
    return { idToken, accessToken };
  };
  const redeem = (idToken: string, accessToken: string) =>
    postForm(`${s.te.url}/token`, {
      grant_type: "id_token",
      provider: "idp",
      id_token: idToken,
      provider_access_token: accessToken,
    });

  await t.step(
    "the provider's at_hash is the one OpenID Core defines, and we accept it",
    async () => {
      const nonce = await getNonce(s.te);
      const { idToken, accessToken } = await implicit(nonce);
      const claims = decodeJwt(idToken);
      assert.equal(claims.nonce, nonce);
      assert.equal(claims.at_hash, atHash(accessToken, decodeProtectedHeader(idToken).alg!));
      const user = await userOf(s.te, await redeem(idToken, accessToken));
      assert.equal(user?.external_id, "alice-1");
      // With an access token issued, the provider keeps the email for UserInfo (Core §5.4).
      assert.equal(claims.email, undefined);
      assert.equal(user?.email, "");
    },
  );
  await t.step("asked for with the claims parameter, the email comes in the ID token", async () => {
    const claims = { id_token: { email: null, email_verified: null, name: null } };
    const { idToken, accessToken } = await implicit(
      await getNonce(s.te),
      { claims: JSON.stringify(claims) },
      "bob",
    );
    const user = await userOf(s.te, await redeem(idToken, accessToken));
    assert.equal(user?.email, "bob@example.com");
    assert.equal(user?.display_name, "Bob");
  });
  await t.step("another access token than the one co-issued → invalid_grant", async () => {
    const first = await implicit(await getNonce(s.te));
    const second = await implicit(await getNonce(s.te));
    const why = await expectError(
      await redeem(first.idToken, second.accessToken),
      400,
      "invalid_grant",
    );
    assert.match(why, /at_hash does not match/);
  });
  await t.step("the same ID token twice → invalid_grant", async () => {
    const { idToken, accessToken } = await implicit(await getNonce(s.te));
    assert.equal((await redeem(idToken, accessToken)).status, 200);
    await expectError(await redeem(idToken, accessToken), 400, "invalid_grant");
  });
  await t.step("a nonce the service never minted → invalid_grant", async () => {
    const { idToken, accessToken } = await implicit("A".repeat(43));
    await expectError(await redeem(idToken, accessToken), 400, "invalid_grant");
  });
});

Deno.test("oidc-provider: after the provider rotates its signing key, the service verifies with the new key from its JWKS", async () => {
  const clock = new FixedClock();
  await using s = await setup({ clock });
  const before = oauth.generateRandomCodeVerifier();
  await userOf(s.te, await redeemCode(s.te, await codeFor(s.idp, before), before));
  const kid = await s.idp.rotateKeys();
  assert.equal(s.idp.signingKid, kid);
  // A re-fetch for an unknown kid waits out the cache's 30 s cooldown since the last fetch.
  clock.advance(31_000);
  const after = oauth.generateRandomCodeVerifier();
  const user = await userOf(s.te, await redeemCode(s.te, await codeFor(s.idp, after), after));
  assert.equal(user?.external_id, "alice-1");
  const jwks = await (await fetch(`${s.idp.issuer}/jwks`)).json();
  assert.deepEqual(jwks.keys.map((k: { kid: string }) => k.kid), [kid, "k1"]);
});

Deno.test("oidc-provider: a code it refuses is invalid_grant; a client it refuses is a 502", async (t) => {
  await using s = await setup();
  await t.step("a code already redeemed", async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const code = await codeFor(s.idp, verifier);
    assert.equal((await redeemCode(s.te, code, verifier)).status, 200);
    await expectError(await redeemCode(s.te, code, verifier), 400, "invalid_grant");
  });
  await t.step("a code issued to another client", async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const code = await codeFor(s.idp, verifier, "alice-1", OTHER_CLIENT);
    await expectError(
      await redeemCode(s.te, code, verifier, OTHER_CLIENT.redirect_uri),
      400,
      "invalid_grant",
    );
  });
  await t.step("another redirect_uri than the authorization request's", async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const code = await codeFor(s.idp, verifier);
    await expectError(
      await redeemCode(s.te, code, verifier, "https://app.example/other"),
      400,
      "invalid_grant",
    );
  });
  await t.step("a verifier that does not match the challenge", async () => {
    const code = await codeFor(s.idp, oauth.generateRandomCodeVerifier());
    const why = await expectError(
      await redeemCode(s.te, code, oauth.generateRandomCodeVerifier()),
      400,
      "invalid_grant",
    );
    assert.match(why, /code_verifier/);
  });
  await t.step("our client secret wrong: the provider's invalid_client is our fault", async () => {
    await using wrong = await setup({ secret: "not-the-secret" });
    const verifier = oauth.generateRandomCodeVerifier();
    const code = await codeFor(wrong.idp, verifier);
    await expectError(await redeemCode(wrong.te, code, verifier), 502, "server_error");
  });
});

Deno.test("oidc-provider: an expired code is invalid_grant", async () => {
  await using s = await setup({ provider: { codeTtlSeconds: 1 } });
  const verifier = oauth.generateRandomCodeVerifier();
  const code = await codeFor(s.idp, verifier);
  const exp = await s.idp.codeExpiry(code);
  // The provider reads the real clock: wait for the condition, its expiry, to hold.
  await waitFor(() => Date.now() >= (exp + 1) * 1000, "the code's expiry", 100);
  await expectError(await redeemCode(s.te, code, verifier), 400, "invalid_grant");
});
