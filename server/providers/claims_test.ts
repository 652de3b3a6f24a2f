import assert from "node:assert/strict";
import { claimBoolean, providerIdentity } from "./claims.ts";
import type { IdTokenClaims } from "./id_token.ts";

const claims = (extra: Record<string, unknown>): IdTokenClaims => ({ sub: "s", iat: 0, ...extra });

Deno.test('claimBoolean() reads JSON booleans and Apple\'s "true"/"false" strings, nothing else', () => {
  assert.equal(claimBoolean(true), true);
  assert.equal(claimBoolean("true"), true);
  assert.equal(claimBoolean(false), false);
  assert.equal(claimBoolean("false"), false);
  for (const v of [undefined, null, 1, 0, "TRUE", "yes", "", [true], {}]) {
    assert.equal(claimBoolean(v), undefined, JSON.stringify(v));
  }
});

Deno.test("providerIdentity() keeps only an email the parser accepts", () => {
  assert.equal(providerIdentity(claims({ email: "a@example.com" })).email, "a@example.com");
  assert.equal(
    providerIdentity(claims({ email: "eve@evil.example@example.com" })).email,
    undefined,
  );
  assert.equal(
    providerIdentity(claims({ email: `${"a".repeat(400)}@example.com` })).email,
    undefined,
  );
  assert.equal(providerIdentity(claims({ email: 7 })).email, undefined);
});

Deno.test("providerIdentity() cuts the display name to the internal API's 256 cap", () => {
  assert.equal(providerIdentity(claims({ name: "x".repeat(100_000) })).displayName?.length, 256);
  assert.equal(providerIdentity(claims({ preferred_username: "bob" })).displayName, "bob");
  assert.equal(
    providerIdentity(claims({ name: "", preferred_username: "bob" })).displayName,
    "bob",
  );
  // Never half a surrogate pair: 255 x's then an emoji would cut inside it.
  const cut = providerIdentity(claims({ name: `${"x".repeat(255)}😀` })).displayName!;
  assert.equal(cut, "x".repeat(255));
  assert.ok(cut.isWellFormed());
  assert.equal(providerIdentity(claims({})).displayName, undefined);
});

Deno.test("providerIdentity() replaces NUL and unpaired surrogates in the name, so sign-in goes on", () => {
  assert.equal(providerIdentity(claims({ name: "A\0d\ud800a" })).displayName, "A\ufffdd\ufffda");
  assert.equal(
    providerIdentity(claims({ preferred_username: "\udfffbob" })).displayName,
    "\ufffdbob",
  );
});
