import assert from "node:assert/strict";
import { generateClientKey } from "./client_key.ts";
import { clientJwks, clientMetadata } from "./client_metadata.ts";

Deno.test("clientMetadata() describes a confidential DPoP web client at its own URL", () => {
  assert.deepEqual(clientMetadata("https://blog.example", "My blog"), {
    client_id: "https://blog.example/oauth/client-metadata.json",
    client_name: "My blog",
    client_uri: "https://blog.example",
    application_type: "web",
    redirect_uris: ["https://blog.example/oauth/callback"],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    scope: "atproto transition:generic",
    token_endpoint_auth_method: "private_key_jwt",
    token_endpoint_auth_signing_alg: "ES256",
    dpop_bound_access_tokens: true,
    jwks_uri: "https://blog.example/oauth/jwks.json",
  });
});

Deno.test("clientJwks() publishes the public key only, under its dated kid", async () => {
  const key = await generateClientKey(new Date("2026-11-23T15:04:05Z"));
  const jwks = clientJwks(key);
  assert.deepEqual(jwks, {
    keys: [{
      kty: "EC",
      crv: "P-256",
      x: key.x,
      y: key.y,
      kid: "2026-11-23T15-04-05Z",
      alg: "ES256",
      use: "sig",
    }],
  });
  assert.ok(!JSON.stringify(jwks).includes(key.d));
});
