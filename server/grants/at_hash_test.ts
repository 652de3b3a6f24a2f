import assert from "node:assert/strict";
import { atHash, atHashMatches } from "./at_hash.ts";

// OpenID Connect Core 1.0, Appendix A.4 (RS256, response_type=id_token token).
const OIDC_ACCESS_TOKEN = "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y";
const OIDC_AT_HASH = "77QmUPtjPfzWtF2AnpK9RQ";

Deno.test("atHash() reproduces the OpenID Connect Core example for RS256", () => {
  assert.equal(atHash(OIDC_ACCESS_TOKEN, "RS256"), OIDC_AT_HASH);
});

Deno.test("atHash() uses the SHA-2 size of the alg: 256 → 16, 384 → 24, 512 → 32 bytes", () => {
  const bytes = (alg: string) =>
    atob(atHash("t", alg)!.replace(/-/g, "+").replace(/_/g, "/")).length;
  for (const alg of ["RS256", "PS256", "ES256"]) assert.equal(bytes(alg), 16, alg);
  for (const alg of ["RS384", "PS384", "ES384"]) assert.equal(bytes(alg), 24, alg);
  for (const alg of ["RS512", "PS512", "ES512"]) assert.equal(bytes(alg), 32, alg);
  assert.equal(atHash("t", "RS256"), atHash("t", "ES256"));
  assert.notEqual(atHash("t", "RS384"), atHash("t", "RS512")?.slice(0, 32));
});

Deno.test("atHash() uses SHA-512 for EdDSA (Ed25519), as OpenID Connect specifies", () => {
  assert.equal(atHash("t", "EdDSA"), atHash("t", "RS512"));
  assert.equal(atHash("t", "Ed25519"), atHash("t", "RS512"));
});

Deno.test("atHash() has no value for algorithms without a defined hash", () => {
  assert.equal(atHash("t", "none"), undefined);
  assert.equal(atHash("t", "HS256x"), undefined);
});

Deno.test("atHashMatches() is false for a missing, foreign or non-string claim", () => {
  assert.equal(atHashMatches(OIDC_AT_HASH, OIDC_ACCESS_TOKEN, "RS256"), true);
  assert.equal(atHashMatches(undefined, OIDC_ACCESS_TOKEN, "RS256"), false);
  assert.equal(atHashMatches(OIDC_AT_HASH, "other", "RS256"), false);
  assert.equal(atHashMatches(OIDC_AT_HASH, OIDC_ACCESS_TOKEN, "RS384"), false);
  assert.equal(atHashMatches(42, OIDC_ACCESS_TOKEN, "RS256"), false);
  assert.equal(atHashMatches(OIDC_AT_HASH, OIDC_ACCESS_TOKEN, "none"), false);
});
