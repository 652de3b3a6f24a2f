import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { authorize, requireS256Pkce, startOidcProvider } from "../support/oidc.ts";
import { providerToml, startTokenServer } from "../support/token_server.ts";

const REDIRECT = "https://app.example/cb";
const insecure = { [oauth.allowInsecureRequests]: true } as const;
/** The app: a public client of the token service (it holds no secret). */
const app: oauth.Client = { client_id: "app" };

async function discover(issuer: string) {
  const url = new URL(issuer);
  return await oauth.processDiscoveryResponse(
    url,
    await oauth.discoveryRequest(url, { algorithm: "oidc", ...insecure }),
  );
}

/** A provider enforcing S256 PKCE, the token service in front of it, and the app's view of both. */
async function setup() {
  const idp = await startOidcProvider();
  const pkce = requireS256Pkce(idp);
  idp.server.service.on("beforeTokenSigning", (t: { payload: Record<string, unknown> }) => {
    if (t.payload.aud !== undefined) Object.assign(t.payload, { sub: "pkce-user" });
  });
  const te = await startTokenServer({ toml: providerToml("idp", idp.issuer) });
  const provider = await discover(idp.issuer);
  const service = await discover(te.issuer);
  /** The app's sign-in at the provider with a fresh verifier: callback parameters and verifier. */
  const signInAtProvider = async (verifier = oauth.generateRandomCodeVerifier()) => {
    const callback = await authorize(idp, {
      response_type: "code",
      client_id: "te-client",
      redirect_uri: REDIRECT,
      scope: "openid email",
      state: "st",
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    });
    const params = oauth.validateAuthResponse(provider, { client_id: "te-client" }, callback, "st");
    return { params, verifier };
  };
  /** The app redeems the code at the token service (`provider=idp` as an extra parameter). */
  const redeem = (params: URLSearchParams, verifier: string | typeof oauth.nopkce) =>
    oauth.authorizationCodeGrantRequest(
      service,
      app,
      oauth.None(),
      params,
      REDIRECT,
      verifier,
      { ...insecure, additionalParameters: { provider: "idp" } },
    );
  const close = async () => {
    await te.close();
    await idp.close();
  };
  return { idp, te, pkce, service, signInAtProvider, redeem, [Symbol.asyncDispose]: close };
}

async function oauthError(res: Response): Promise<[number, string]> {
  const body = await res.json();
  return [res.status, body.error];
}

Deno.test("pkce: the app's code_verifier reaches a provider that enforces S256, and tokens come back", async () => {
  await using s = await setup();
  const { params, verifier } = await s.signInAtProvider();
  const res = await s.redeem(params, verifier);
  const tokens = await oauth.processAuthorizationCodeResponse(s.service, app, res);
  assert.deepEqual(s.pkce.verifiers, [verifier]);
  const { payload } = await jwtVerify(
    tokens.access_token,
    createRemoteJWKSet(new URL(`${s.te.issuer}/keys`)),
    { issuer: s.te.issuer },
  );
  const user = await s.te.server.deps.store.users.get(String(payload.sub));
  assert.equal(user?.external_id, "pkce-user");
  assert.match(tokens.refresh_token!, /^[A-Za-z0-9_-]{43}$/);
});

Deno.test("pkce: a verifier the provider refuses is invalid_grant, like a bad code", async (t) => {
  await using s = await setup();
  await t.step("wrong verifier", async () => {
    const { params } = await s.signInAtProvider();
    const other = oauth.generateRandomCodeVerifier();
    assert.deepEqual(await oauthError(await s.redeem(params, other)), [400, "invalid_grant"]);
  });
  await t.step("no verifier for a code issued with a challenge", async () => {
    const { params } = await s.signInAtProvider();
    assert.deepEqual(
      await oauthError(await s.redeem(params, oauth.nopkce)),
      [400, "invalid_grant"],
    );
  });
  await t.step("the right verifier once more: the code was already used", async () => {
    const { params, verifier } = await s.signInAtProvider();
    assert.equal((await s.redeem(params, verifier)).status, 200);
    assert.deepEqual(await oauthError(await s.redeem(params, verifier)), [400, "invalid_grant"]);
  });
});

Deno.test("pkce: a malformed code_verifier is invalid_request and never reaches the provider", async () => {
  await using s = await setup();
  const { params } = await s.signInAtProvider();
  for (
    const bad of [
      "a".repeat(42), // too short
      "a".repeat(129), // too long
      `${"a".repeat(42)}+`, // not unreserved
      `${"a".repeat(42)} `,
      "",
    ]
  ) {
    const res = await fetch(s.service.token_endpoint!, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: params.get("code")!,
        provider: "idp",
        redirect_uri: REDIRECT,
        code_verifier: bad,
      }),
    });
    const body = await res.json();
    assert.equal(res.status, 400, bad);
    assert.equal(body.error, "invalid_request");
    assert.match(body.error_description, /code_verifier must be 43 to 128 characters/);
  }
  assert.deepEqual(s.pkce.verifiers, []);
  // The longest and the shortest legal verifiers, every unreserved character, pass through.
  const legal = ["~".repeat(128), `${"Az09".repeat(9)}-._~zZ9`];
  assert.deepEqual(legal.map((v) => v.length), [128, 43]);
  for (const verifier of legal) {
    const fresh = await s.signInAtProvider(verifier);
    assert.equal((await s.redeem(fresh.params, verifier)).status, 200);
  }
  assert.deepEqual(s.pkce.verifiers, legal);
});
