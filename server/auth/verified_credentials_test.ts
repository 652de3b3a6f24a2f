import assert from "node:assert/strict";
import {
  createVerifiedCredentials,
  rememberUntil,
  VERIFIED_TTL_MS,
} from "./verified_credentials.ts";

const who = { method: "shared_secret", subject: "shared-secret" } as const;

Deno.test("verified credentials: remembered until their time, then forgotten", () => {
  const verified = createVerifiedCredentials();
  verified.remember("secret-a", who, 1_000);
  assert.deepEqual(verified.get("secret-a", 999), who);
  assert.equal(verified.get("secret-a", 1_000), undefined);
  assert.equal(verified.get("secret-b", 0), undefined, "an unknown credential is never found");
});

Deno.test("verified credentials: the oldest is forgotten past the bound", () => {
  const verified = createVerifiedCredentials();
  for (let i = 0; i <= 1_000; i++) verified.remember(`c${i}`, who, 10);
  assert.equal(verified.get("c0", 0), undefined);
  assert.deepEqual(verified.get("c1000", 0), who);
});

Deno.test("rememberUntil() caps an operator token at its exp, and remembers no unreadable token", () => {
  const jwt = (payload: unknown) =>
    `e30.${
      new TextEncoder().encode(JSON.stringify(payload)).toBase64({ alphabet: "base64url" })
    }.s`;
  assert.equal(rememberUntil("x", "shared_secret", 5_000), 5_000 + VERIFIED_TTL_MS);
  assert.equal(rememberUntil(jwt({ exp: 10 }), "operator_token", 5_000), 10_000);
  assert.equal(rememberUntil(jwt({ exp: 1e9 }), "operator_token", 5_000), 5_000 + VERIFIED_TTL_MS);
  assert.equal(rememberUntil("not-a-jwt", "operator_token", 5_000), 5_000);
});
