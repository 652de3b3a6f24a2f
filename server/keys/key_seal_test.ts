import assert from "node:assert/strict";
import { createKeySealer, isSealed, SEALED_PREFIX } from "./key_seal.ts";

const SECRET = "a-secret-of-at-least-32-bytes-0123456789";
const DER = "MC4CAQAwBQYDK2VwBCIEIOz3vKq6v7M9tQ4m8kqQ3x0r1Y5m3mJ2n7vY8b0Qk5eA";

Deno.test("createKeySealer() round-trips a key and never stores it in the clear", () => {
  const sealer = createKeySealer(SECRET);
  const sealed = sealer.seal(DER, "kid-1");
  assert.ok(sealed.startsWith(SEALED_PREFIX));
  assert.ok(isSealed(sealed));
  assert.ok(!isSealed(DER));
  assert.ok(!sealed.includes(DER.slice(16, 40)));
  assert.equal(sealer.open(sealed, "kid-1"), DER);
  // A fresh salt and IV each time: sealing twice gives two different strings.
  assert.notEqual(sealer.seal(DER, "kid-1"), sealed);
});

Deno.test("KeySealer.open() refuses another secret, another kid and any tampering", () => {
  const sealed = createKeySealer(SECRET).seal(DER, "kid-1");
  assert.equal(createKeySealer(`${SECRET}!`).open(sealed, "kid-1"), undefined);
  assert.equal(createKeySealer(SECRET).open(sealed, "kid-2"), undefined);
  const flipped = sealed.slice(0, -2) + (sealed.at(-2) === "A" ? "B" : "A") + sealed.at(-1);
  assert.equal(createKeySealer(SECRET).open(flipped, "kid-1"), undefined);
  assert.equal(createKeySealer(SECRET).open(`${SEALED_PREFIX}AAAA`, "kid-1"), undefined);
  assert.equal(createKeySealer(SECRET).open(DER, "kid-1"), undefined);
});
