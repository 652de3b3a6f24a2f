import assert from "node:assert/strict";
import { completeFromUserinfo, lacksProfileClaims } from "./userinfo.ts";

const idToken = { sub: "u1", iat: 1, iss: "https://idp.example", aud: "te" };

Deno.test("completeFromUserinfo() adds the profile claims the ID token lacks", () => {
  assert.deepEqual(
    completeFromUserinfo(idToken, {
      sub: "u1",
      email: "u1@example.com",
      email_verified: true,
      name: "U One",
      iss: "https://evil.example",
      tier: "pro",
    }),
    { ...idToken, email: "u1@example.com", email_verified: true, name: "U One" },
  );
});

Deno.test("completeFromUserinfo() keeps the ID token's own values", () => {
  const claims = { ...idToken, email: "id@example.com", email_verified: false };
  assert.deepEqual(
    completeFromUserinfo(claims, { sub: "u1", email: "ui@example.com", email_verified: true }),
    claims,
  );
});

Deno.test("completeFromUserinfo() uses nothing from a response for another subject", () => {
  assert.equal(completeFromUserinfo(idToken, { sub: "u2", email: "u2@example.com" }), undefined);
  assert.equal(completeFromUserinfo(idToken, { email: "u2@example.com" }), undefined);
});

Deno.test("lacksProfileClaims() asks for UserInfo without an email or without any name", () => {
  assert.equal(lacksProfileClaims(idToken), true);
  assert.equal(lacksProfileClaims({ ...idToken, email: "a@example.com" }), true);
  assert.equal(lacksProfileClaims({ ...idToken, email: "a@example.com", name: "A" }), false);
  assert.equal(
    lacksProfileClaims({ ...idToken, email: "a@example.com", preferred_username: "a" }),
    false,
  );
});
