import assert from "node:assert/strict";
import { FixedClock } from "@org/shared";
import { RateLimiter } from "./rate_limiter.ts";

Deno.test("RateLimiter.take() allows `limit` per client per window, then says how long to wait", () => {
  const clock = new FixedClock(120_000);
  const rl = new RateLimiter(clock, 2, 60_000);
  assert.equal(rl.take("a").allowed, true);
  assert.equal(rl.take("a").allowed, true);
  assert.equal(rl.take("b").allowed, true, "another client has its own budget");
  clock.advance(20_500);
  assert.deepEqual(rl.take("a"), { allowed: false, retryAfterSeconds: 40 });
  clock.advance(39_499);
  assert.deepEqual(rl.take("a"), { allowed: false, retryAfterSeconds: 1 });
  clock.advance(1);
  assert.equal(rl.take("a").allowed, true, "a new window");
});

Deno.test("RateLimiter.take() shares one budget across an IPv6 /64, not across /64s", () => {
  const rl = new RateLimiter(new FixedClock(0), 2, 60_000);
  assert.equal(rl.take("2001:db8:0:1::1").allowed, true);
  assert.equal(rl.take("2001:db8:0:1::2").allowed, true);
  assert.equal(rl.take("2001:db8:0:1:abcd::3").allowed, false);
  assert.equal(rl.take("2001:db8:0:2::1").allowed, true);
});

Deno.test("RateLimiter.take() counts an IPv6 /64 together in every window, not only the first", () => {
  const clock = new FixedClock(0);
  const rl = new RateLimiter(clock, 1, 60_000);
  assert.equal(rl.take("2001:db8:0:1::1").allowed, true);
  assert.equal(rl.take("2001:db8:0:1::2").allowed, false);
  clock.advance(60_000);
  assert.equal(rl.take("2001:db8:0:1::2").allowed, true, "a new window");
  assert.equal(rl.take("2001:db8:0:1::1").allowed, false, "the same /64, same window");
  assert.equal(rl.take("203.0.113.9").allowed, true);
  assert.equal(rl.take("203.0.113.9").allowed, false);
});
