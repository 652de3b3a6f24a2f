import assert from "node:assert/strict";
import { FixedClock } from "@org/shared";
import { KvNonceStore, NONCE_KEYS } from "./kv_nonces.ts";
import type { AssertionMark } from "./nonces.ts";

const T0 = 1_700_000_000_000;

async function withStore(
  fn: (store: KvNonceStore, clock: FixedClock, kv: Deno.Kv) => Promise<void>,
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = new FixedClock(T0);
    await fn(new KvNonceStore(kv, clock), clock, kv);
  } finally {
    kv.close();
  }
}

const nonce = (hash: string) => ({ hash, created_at: T0, expires_at: T0 + 600_000 });
const mark = (id: string): AssertionMark => ({
  issuer: "https://idp",
  id,
  expires_at: T0 + 300_000,
});

Deno.test("KvNonceStore.redeem() consumes a nonce once and marks the token", async () => {
  await withStore(async (store, _clock, kv) => {
    await store.put(nonce("h1"));
    assert.equal(await store.redeem(["x", "h1"], mark("jti:a")), "redeemed");
    assert.equal((await kv.get(NONCE_KEYS.nonce("h1"))).value, null);
    assert.deepEqual(
      (await kv.get(NONCE_KEYS.assertion("https://idp", "jti:a"))).value,
      mark("jti:a"),
    );
    assert.equal(await store.redeem(["h1"], mark("jti:b")), "nonce_unknown");
  });
});

Deno.test("KvNonceStore.redeem() refuses a marked token without consuming the nonce", async () => {
  await withStore(async (store) => {
    await store.put(nonce("h1"));
    await store.put(nonce("h2"));
    assert.equal(await store.redeem(["h1"], mark("jti:a")), "redeemed");
    assert.equal(await store.redeem(["h2"], mark("jti:a")), "assertion_used");
    assert.equal(await store.redeem(["h2"], mark("jti:other")), "redeemed");
  });
});

Deno.test("KvNonceStore.redeem() expires nonces by the injected clock at 600 s", async () => {
  await withStore(async (store, clock) => {
    await store.put(nonce("h1"));
    await store.put(nonce("h2"));
    clock.advance(599_999);
    assert.equal(await store.redeem(["h1"], mark("jti:a")), "redeemed");
    clock.advance(1);
    assert.equal(await store.redeem(["h2"], mark("jti:b")), "nonce_expired");
    assert.equal(await store.redeem(["h2"], mark("jti:b")), "nonce_unknown");
  });
});

Deno.test("KvNonceStore.redeem() lets exactly one of concurrent redemptions of a nonce win", async () => {
  await withStore(async (store) => {
    await store.put(nonce("h1"));
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.redeem(["h1"], mark(`jti:${i}`))),
    );
    assert.equal(outcomes.filter((o) => o === "redeemed").length, 1);
    assert.ok(outcomes.every((o) => o === "redeemed" || o === "nonce_unknown"));
  });
});

Deno.test("KvNonceStore.put() refuses a nonce hash that already exists", async () => {
  await withStore(async (store) => {
    await store.put(nonce("h1"));
    await assert.rejects(store.put(nonce("h1")));
  });
});
