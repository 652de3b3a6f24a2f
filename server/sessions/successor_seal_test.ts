import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { seededRandom } from "@org/shared";
import { newOpaqueToken, tokenHash } from "./opaque_token.ts";
import { openSuccessor, sealSuccessor } from "./successor_seal.ts";

const old = newOpaqueToken(seededRandom("old"));
const next = newOpaqueToken(seededRandom("next"));

Deno.test("sealSuccessor(): the holder of the old token gets the same successor back", () => {
  const sealed = sealSuccessor(old, next);
  assert.equal(openSuccessor(old, tokenHash(old), sealed), next);
});

Deno.test("sealSuccessor(): the sealed form is neither the successor nor any part of it", () => {
  const sealed = sealSuccessor(old, next);
  assert.equal(sealed.length, 43);
  assert.notEqual(sealed, next);
  for (let i = 0; i + 8 <= next.length; i++) assert.ok(!sealed.includes(next.slice(i, i + 8)));
});

Deno.test("sealSuccessor(): the pad is not the stored hash of the old token", () => {
  // The store keeps SHA-256(old); were the pad that same value, the store would hold the key.
  const sealed = sealSuccessor(old, next);
  const hash = Buffer.from(tokenHash(old), "base64url");
  const raw = Buffer.from(sealed, "base64url");
  const unsealed = Buffer.from(raw.map((b, i) => b ^ hash[i]!)).toString("base64url");
  assert.notEqual(unsealed, next);
});

Deno.test("openSuccessor(): another token opens something else; malformed forms open nothing", () => {
  const sealed = sealSuccessor(old, next);
  const other = newOpaqueToken(seededRandom("other"));
  // A v2 seal has no tag: the caller tells right from wrong by the stored successor hash.
  const wrong = openSuccessor(other, tokenHash(other), sealed);
  assert.notEqual(wrong, next);
  assert.notEqual(tokenHash(wrong!), tokenHash(next));
  assert.equal(openSuccessor(old, tokenHash(old), "short"), undefined);
  assert.equal(openSuccessor(old, tokenHash(old), sealed + "AAAA"), undefined);
});

Deno.test("openSuccessor(): opens a successor sealed by the first release (format v1)", () => {
  // Sealed with seededRandom("iv") by the original implementation (HKDF → AES-256-GCM):
  // stored retired records must keep opening across upgrades.
  const sealed =
    "V-Egq9nRsMDn8djBV_Xkt4Xia9xjZ--E_uw3Rx2vC4wr5UMemy5LBqip2wD58FYl6uTu2cCzmKriI39ugg_BnVIkz_Yf7rY";
  assert.equal(old, "hZ21xMfN6UpOo91L-ZqxmRLA2Q_DzSePDUSy9DRxHkc");
  assert.equal(openSuccessor(old, tokenHash(old), sealed), next);
  const other = newOpaqueToken(seededRandom("other"));
  assert.equal(openSuccessor(other, tokenHash(old), sealed), undefined);
  assert.equal(openSuccessor(old, tokenHash(other), sealed), undefined);
  const flipped = sealed.slice(0, 20) + (sealed[20] === "A" ? "B" : "A") + sealed.slice(21);
  assert.equal(openSuccessor(old, tokenHash(old), flipped), undefined);
});
