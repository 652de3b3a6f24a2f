import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { FixedClock, seededRandom } from "@org/shared";
import type { NonceRecord, NonceStore } from "../store/nonces.ts";
import { mintNonce, NONCE_TTL_SECONDS, nonceLookupHashes } from "./nonce.ts";

const sha = (s: string, enc: "base64url" | "hex") => createHash("sha256").update(s).digest(enc);

Deno.test("mintNonce() answers 256 random bits base64url and stores only their SHA-256 for 600 s", async () => {
  const puts: NonceRecord[] = [];
  const nonces: NonceStore = {
    put: (r) => Promise.resolve(void puts.push(r)),
    redeem: () => Promise.reject(new Error("unused")),
  };
  const clock = new FixedClock(1_000_000);
  const res = await mintNonce({ random: seededRandom("n"), clock, nonces });
  assert.equal(res.expires_in, NONCE_TTL_SECONDS);
  assert.equal(NONCE_TTL_SECONDS, 600);
  assert.match(res.nonce, /^[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(puts, [{
    hash: sha(res.nonce, "base64url"),
    created_at: 1_000_000,
    expires_at: 1_600_000,
  }]);
  const again = await mintNonce({ random: seededRandom("m"), clock, nonces });
  assert.notEqual(again.nonce, res.nonce);
});

Deno.test("nonceLookupHashes() finds a raw echoed nonce by its SHA-256", () => {
  const nonce = "q3K0pXzv7m1Zb8yJ2cN5rT4wE6uH9kL0aS1dF2gH3jK";
  assert.equal(nonceLookupHashes(nonce)[0], sha(nonce, "base64url"));
});

Deno.test("nonceLookupHashes() accepts SHA-256 of the minted nonce, base64url or hex in any case", () => {
  const nonce = "q3K0pXzv7m1Zb8yJ2cN5rT4wE6uH9kL0aS1dF2gH3jK";
  const stored = sha(nonce, "base64url");
  assert.ok(nonceLookupHashes(stored).includes(stored));
  assert.ok(nonceLookupHashes(sha(nonce, "hex")).includes(stored));
  assert.ok(nonceLookupHashes(sha(nonce, "hex").toUpperCase()).includes(stored));
});

Deno.test("nonceLookupHashes() never lets another value stand for a nonce", () => {
  const nonce = "q3K0pXzv7m1Zb8yJ2cN5rT4wE6uH9kL0aS1dF2gH3jK";
  const stored = sha(nonce, "base64url");
  for (const claim of ["", "abc", nonce + "x", sha(stored, "hex"), stored.slice(0, 42)]) {
    assert.ok(!nonceLookupHashes(claim).includes(stored), claim);
  }
  assert.deepEqual(nonceLookupHashes("short"), [sha("short", "base64url")]);
});
