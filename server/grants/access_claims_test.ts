import assert from "node:assert/strict";
import { accessTokenClaims } from "./access_claims.ts";

const reg = { iss: "https://i", sub: "usr_1", iat: 1, exp: 901, jti: "j", sid: "ses_1" };

Deno.test("accessTokenClaims() lets the user's claim win over custom_claims", () => {
  const c = accessTokenClaims(reg, { tier: "free", org: "acme" }, { tier: "pro" });
  assert.equal(c.tier, "pro");
  assert.equal(c.org, "acme");
});

Deno.test("accessTokenClaims() never lets either source override reserved claims", () => {
  const c = accessTokenClaims(reg, { iss: "x", nbf: 5 }, { sub: "evil", sid: "s", aud: "a" });
  assert.deepEqual(c, reg);
});
