import assert from "node:assert/strict";
import { cryptoRandom, seededRandom } from "@org/shared";
import { newOpaqueToken, tokenHash } from "../store/ids.ts";
import { openSuccessor, sealSuccessor } from "./successor_seal.ts";

const old = newOpaqueToken(seededRandom("old"));
const next = newOpaqueToken(seededRandom("next"));

Deno.test("sealSuccessor(): the holder of the old token gets the same successor back", () => {
  const sealed = sealSuccessor(old, tokenHash(old), next, cryptoRandom);
  assert.equal(openSuccessor(old, tokenHash(old), sealed), next);
});

Deno.test("sealSuccessor(): the sealed form does not contain the successor", () => {
  const sealed = sealSuccessor(old, tokenHash(old), next, cryptoRandom);
  assert.ok(!sealed.includes(next));
  assert.ok(!sealed.includes(next.slice(0, 16)));
});

Deno.test("openSuccessor(): another token, another hash or a flipped byte opens nothing", () => {
  const sealed = sealSuccessor(old, tokenHash(old), next, cryptoRandom);
  const other = newOpaqueToken(seededRandom("other"));
  assert.equal(openSuccessor(other, tokenHash(old), sealed), undefined);
  assert.equal(openSuccessor(old, tokenHash(other), sealed), undefined);
  const flipped = sealed.slice(0, 20) + (sealed[20] === "A" ? "B" : "A") + sealed.slice(21);
  assert.equal(openSuccessor(old, tokenHash(old), flipped), undefined);
  assert.equal(openSuccessor(old, tokenHash(old), "short"), undefined);
});

Deno.test("openSuccessor(): opens a successor sealed by the first release (format v1 is stable)", () => {
  // Sealed with seededRandom("iv") by the original implementation: stored retired records
  // must keep opening across upgrades.
  const sealed =
    "V-Egq9nRsMDn8djBV_Xkt4Xia9xjZ--E_uw3Rx2vC4wr5UMemy5LBqip2wD58FYl6uTu2cCzmKriI39ugg_BnVIkz_Yf7rY";
  assert.equal(old, "hZ21xMfN6UpOo91L-ZqxmRLA2Q_DzSePDUSy9DRxHkc");
  assert.equal(openSuccessor(old, tokenHash(old), sealed), next);
  assert.equal(sealSuccessor(old, tokenHash(old), next, seededRandom("iv")), sealed);
});
