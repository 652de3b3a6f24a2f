/**
 * The RFC 8693 form of the ID-token grant (`grant_type=urn:ietf:params:oauth:grant-type:
 * token-exchange`), against the same provider fixture as the `id_token` form.
 */
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { decodeJwt } from "jose";
import {
  expectError,
  getNonce,
  mintIdToken,
  postForm,
  redeemIdToken,
} from "../support/id_tokens.ts";
import { type OidcFixture, startOidcProvider } from "../support/oidc.ts";
import { providerToml, startTokenServer, type TokenServer } from "../support/token_server.ts";

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token";
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

function start(idp: OidcFixture, on = true): Promise<TokenServer> {
  return startTokenServer({
    toml: providerToml("idp", idp.issuer) + `[grants]\nid_token = ${on}\n`,
  });
}

function exchange(te: TokenServer, params: Record<string, string>): Promise<Response> {
  return postForm(`${te.url}/token`, {
    grant_type: TOKEN_EXCHANGE,
    subject_token_type: ID_TOKEN_TYPE,
    provider: "idp",
    ...params,
  });
}

Deno.test("token exchange: an ID token with our nonce yields our tokens and issued_token_type", async () => {
  await using idp = await startOidcProvider();
  await using te = await start(idp);
  const viaIdToken = await redeemIdToken(te, {
    id_token: await mintIdToken(idp, { nonce: await getNonce(te) }),
  });
  const first = await viaIdToken.json();
  const res = await exchange(te, {
    subject_token: await mintIdToken(idp, { nonce: await getNonce(te) }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.deepEqual(Object.keys(body).sort(), [
    "access_token",
    "expires_in",
    "issued_token_type",
    "refresh_token",
    "token_type",
  ]);
  assert.equal(body.issued_token_type, ACCESS_TOKEN_TYPE);
  assert.equal(body.token_type, "Bearer");
  // One user for one provider identity, whichever form signed it in.
  assert.equal(decodeJwt(body.access_token).sub, decodeJwt(first.access_token).sub);
});

Deno.test("token exchange: the nonce and replay rules are the id_token grant's", async () => {
  await using idp = await startOidcProvider();
  await using te = await start(idp);
  assert.match(
    await expectError(
      await exchange(te, { subject_token: await mintIdToken(idp, { nonce: "made-up" }) }),
      400,
      "invalid_grant",
    ),
    /nonce was not issued by this service/,
  );
  const idToken = await mintIdToken(idp, { nonce: await getNonce(te) });
  assert.equal((await redeemIdToken(te, { id_token: idToken })).status, 200);
  assert.equal(
    await expectError(await exchange(te, { subject_token: idToken }), 400, "invalid_grant"),
    "This ID token has already been redeemed",
  );
});

Deno.test("token exchange: other token types are invalid_request naming the supported one", async () => {
  await using idp = await startOidcProvider();
  await using te = await start(idp);
  const subject_token = await mintIdToken(idp, { nonce: await getNonce(te) });
  assert.equal(
    await expectError(
      await exchange(te, { subject_token, subject_token_type: ACCESS_TOKEN_TYPE }),
      400,
      "invalid_request",
    ),
    `Unsupported subject_token_type ${ACCESS_TOKEN_TYPE}; the supported type is ${ID_TOKEN_TYPE}`,
  );
  assert.match(
    await expectError(
      await exchange(te, {
        subject_token,
        requested_token_type: "urn:ietf:params:oauth:token-type:refresh_token",
      }),
      400,
      "invalid_request",
    ),
    /this service issues urn:ietf:params:oauth:token-type:access_token/,
  );
  assert.equal(
    await expectError(await exchange(te, {}), 400, "invalid_request"),
    "Missing parameter subject_token",
  );
});

Deno.test("token exchange: listed in discovery when grants.id_token is on, refused when off", async () => {
  await using idp = await startOidcProvider();
  {
    await using te = await start(idp);
    const doc = await (await fetch(`${te.url}/.well-known/openid-configuration`)).json();
    assert.ok(doc.grant_types_supported.includes(TOKEN_EXCHANGE));
  }
  await using te = await start(idp, false);
  const doc = await (await fetch(`${te.url}/.well-known/openid-configuration`)).json();
  assert.equal(doc.grant_types_supported.includes(TOKEN_EXCHANGE), false);
  assert.equal(
    await expectError(await exchange(te, { subject_token: "x" }), 400, "unsupported_grant_type"),
    `Unsupported grant_type ${TOKEN_EXCHANGE}`,
  );
});

Deno.test("token exchange: with a DPoP proof from oauth4webapi the session is bound", async () => {
  await using idp = await startOidcProvider();
  await using te = await start(idp);
  const as: oauth.AuthorizationServer = { issuer: te.issuer, token_endpoint: `${te.url}/token` };
  const client: oauth.Client = { client_id: "app" };
  const DPoP = oauth.DPoP(client, await oauth.generateKeyPair("EdDSA"));
  const params = {
    subject_token_type: ID_TOKEN_TYPE,
    subject_token: await mintIdToken(idp, { nonce: await getNonce(te) }),
    provider: "idp",
  };
  const send = () =>
    oauth.genericTokenEndpointRequest(as, client, oauth.None(), TOKEN_EXCHANGE, params, {
      [oauth.allowInsecureRequests]: true,
      DPoP,
    });
  assert.equal((await (await send()).json()).error, "use_dpop_nonce");
  const t = await oauth.processGenericTokenEndpointResponse(as, client, await send());
  assert.equal(t.token_type, "dpop");
  assert.equal(t.issued_token_type, ACCESS_TOKEN_TYPE);
  assert.equal(typeof (decodeJwt(t.access_token).cnf as { jkt: string }).jkt, "string");
});
