import assert from "node:assert/strict";
import { base64url, cryptoRandom, seededRandom } from "./random.ts";

Deno.test("seededRandom() repeats for a seed and differs across seeds", () => {
  assert.deepEqual(seededRandom("a").bytes(40), seededRandom("a").bytes(40));
  assert.notDeepEqual(seededRandom("a").bytes(32), seededRandom("b").bytes(32));
});

Deno.test("cryptoRandom.bytes() returns the asked length, also past 64 KiB", () => {
  assert.equal(cryptoRandom.bytes(32).length, 32);
  assert.equal(cryptoRandom.bytes(70000).length, 70000);
});

Deno.test("base64url() is unpadded and URL-safe", () => {
  assert.equal(base64url(new Uint8Array([0xfb, 0xff])), "-_8");
  assert.equal(base64url(new Uint8Array(32)).length, 43);
});
