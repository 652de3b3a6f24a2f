import assert from "node:assert/strict";
import { ConcurrencyLimiter } from "./concurrency_limiter.ts";

Deno.test("ConcurrencyLimiter refuses the request past the limit and admits again after a leave", () => {
  const slots = new ConcurrencyLimiter(2);
  const a = slots.enter("203.0.113.9")!;
  const b = slots.enter("203.0.113.9")!;
  assert.equal(slots.enter("203.0.113.9"), undefined);
  assert.ok(slots.enter("198.51.100.1"), "another client has its own slots");
  slots.leave(a);
  assert.equal(slots.inFlight("203.0.113.9"), 1);
  assert.ok(slots.enter("203.0.113.9"));
  slots.leave(b);
});

Deno.test("ConcurrencyLimiter counts an IPv6 client by its /64 and forgets idle clients", () => {
  const slots = new ConcurrencyLimiter(1);
  const held = slots.enter("2001:db8:0:1::1")!;
  assert.equal(slots.enter("2001:db8:0:1::ffff"), undefined);
  assert.ok(slots.enter("2001:db8:0:2::1"));
  slots.leave(held);
  assert.equal(slots.inFlight("2001:db8:0:1::1"), 0);
});
