import assert from "node:assert/strict";
import { FixedClock, seededRandom } from "@org/shared";
import { createKvStore } from "../store/kv_store.ts";
import { dpopNonceFor, DpopNonces, NONCE_WINDOW_SECONDS } from "./nonce.ts";

const WINDOW_MS = NONCE_WINDOW_SECONDS * 1000;

Deno.test("DpopNonces: instances on one store agree; a nonce lives its window and the next", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = new FixedClock(1_700_000_000_000);
    const a = new DpopNonces(createKvStore(kv, clock).dpop, clock, seededRandom("a"));
    const b = new DpopNonces(createKvStore(kv, clock).dpop, clock, seededRandom("b"));
    const first = await a.current();
    assert.equal(await b.current(), first);
    assert.equal(await b.accepts(first), true);
    clock.advance(WINDOW_MS);
    assert.notEqual(await a.current(), first);
    assert.equal(await b.accepts(first), true);
    clock.advance(WINDOW_MS);
    assert.equal(await a.accepts(first), false);
    assert.equal(await a.accepts("made-up"), false);
  } finally {
    kv.close();
  }
});

Deno.test("dpopNonceFor() differs per window and per secret", () => {
  assert.notEqual(dpopNonceFor("s", 1), dpopNonceFor("s", 2));
  assert.notEqual(dpopNonceFor("s", 1), dpopNonceFor("t", 1));
  assert.match(dpopNonceFor("s", 1), /^[A-Za-z0-9_-]{43}$/);
});
