import assert from "node:assert/strict";
import { epochSeconds, FixedClock } from "./clock.ts";

Deno.test("FixedClock moves only when told", () => {
  const clock = new FixedClock(1_000);
  clock.advance(2_500);
  assert.equal(clock.now(), 3_500);
  assert.equal(epochSeconds(clock), 3);
  clock.set(0);
  assert.equal(clock.now(), 0);
});
