import assert from "node:assert/strict";
import { FixedClock } from "@org/shared";
import { RATE_SYNC_MS, RateLimiter } from "./rate_limiter.ts";
import { createKvStore } from "../store/kv_store.ts";

Deno.test("RateLimiter.take() allows `limit` per client per window, then says how long to wait", async () => {
  const clock = new FixedClock(120_000);
  const rl = new RateLimiter(clock, 2, 60_000);
  assert.equal((await rl.take("a")).allowed, true);
  assert.equal((await rl.take("a")).allowed, true);
  assert.equal((await rl.take("b")).allowed, true, "another client has its own budget");
  clock.advance(20_500);
  assert.deepEqual(await rl.take("a"), { allowed: false, retryAfterSeconds: 40 });
  clock.advance(39_499);
  assert.deepEqual(await rl.take("a"), { allowed: false, retryAfterSeconds: 1 });
  clock.advance(1);
  assert.equal((await rl.take("a")).allowed, true, "a new window");
});

Deno.test("RateLimiter.take() shares one budget across an IPv6 /64, not across /64s", async () => {
  const rl = new RateLimiter(new FixedClock(0), 2, 60_000);
  assert.equal((await rl.take("2001:db8:0:1::1")).allowed, true);
  assert.equal((await rl.take("2001:db8:0:1::2")).allowed, true);
  assert.equal((await rl.take("2001:db8:0:1:abcd::3")).allowed, false);
  assert.equal((await rl.take("2001:db8:0:2::1")).allowed, true);
});

Deno.test("RateLimiter.take() counts an IPv6 /64 together in every window, not only the first", async () => {
  const clock = new FixedClock(0);
  const rl = new RateLimiter(clock, 1, 60_000);
  assert.equal((await rl.take("2001:db8:0:1::1")).allowed, true);
  assert.equal((await rl.take("2001:db8:0:1::2")).allowed, false);
  clock.advance(60_000);
  assert.equal((await rl.take("2001:db8:0:1::2")).allowed, true, "a new window");
  assert.equal((await rl.take("2001:db8:0:1::1")).allowed, false, "the same /64, same window");
  assert.equal((await rl.take("203.0.113.9")).allowed, true);
  assert.equal((await rl.take("203.0.113.9")).allowed, false);
});

Deno.test("RateLimiter: instances sharing a store share one budget, synced about once a second", async () => {
  const clock = new FixedClock(0);
  using kv = await Deno.openKv(":memory:");
  const store = createKvStore(kv, clock).rateLimits;
  const a = new RateLimiter(clock, 5, 60_000, store);
  const b = new RateLimiter(clock, 5, 60_000, store);
  for (let i = 0; i < 3; i++) assert.equal((await a.take("192.0.2.1")).allowed, true);
  clock.advance(RATE_SYNC_MS);
  // b adds its first request and learns a's three (synced by a's next request).
  assert.equal((await a.take("192.0.2.1")).allowed, true);
  assert.equal((await b.take("192.0.2.1")).allowed, true);
  assert.equal((await b.take("192.0.2.1")).allowed, false, "4 by a + 2 by b > 5");
  clock.advance(RATE_SYNC_MS);
  assert.equal((await a.take("192.0.2.1")).allowed, false, "a learns b's two");
  assert.equal((await a.take("192.0.2.2")).allowed, true, "another client");
  clock.advance(60_000);
  assert.equal((await b.take("192.0.2.1")).allowed, true, "a new window");
});

Deno.test("RateLimiter: a store that fails is skipped; counts go out with the next sync", async () => {
  const clock = new FixedClock(0);
  let down = true;
  const added: number[] = [];
  const store = {
    add(_w: number, counts: ReadonlyMap<string, number>) {
      if (down) return Promise.reject(new Error("down"));
      added.push(counts.get("192.0.2.1") ?? 0);
      return Promise.resolve(new Map(counts));
    },
  };
  const rl = new RateLimiter(clock, 100, 60_000, store);
  assert.equal((await rl.take("192.0.2.1")).allowed, true);
  assert.equal((await rl.take("192.0.2.1")).allowed, true);
  down = false;
  clock.advance(RATE_SYNC_MS);
  assert.equal((await rl.take("192.0.2.1")).allowed, true);
  assert.deepEqual(added, [3]);
});
