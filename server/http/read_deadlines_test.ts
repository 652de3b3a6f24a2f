import assert from "node:assert/strict";
import { LATE, ReadDeadlines } from "./read_deadlines.ts";

Deno.test("ReadDeadlines.race() passes a read that settles in time through, value or error", async () => {
  const deadlines = new ReadDeadlines();
  assert.equal(await deadlines.race(Promise.resolve(7), 30), 7);
  await assert.rejects(deadlines.race(Promise.reject(new Error("gone")), 30), /gone/);
});

Deno.test("ReadDeadlines.race() rejects with LATE, after onLate, each read on its own deadline", async () => {
  const deadlines = new ReadDeadlines();
  const alive = setTimeout(() => {}, 5000); // the timer is unref'd; this keeps the test alive
  const order: string[] = [];
  const never = new Promise<never>(() => {});
  // Seconds apart, not milliseconds: a busy machine that stalls this process past the long
  // deadline would fire both at once (and time out the quick read too).
  const short = deadlines.race(never, 0.05, () => order.push("short")).catch((e) => e);
  const long = deadlines.race(never, 2, () => order.push("long")).catch((e) => e);
  const quick = deadlines.race(new Promise((r) => setTimeout(() => r("done"), 10)), 2);
  assert.equal(await quick, "done");
  assert.equal(await short, LATE);
  assert.deepEqual(order, ["short"]);
  assert.equal(await long, LATE);
  assert.deepEqual(order, ["short", "long"]);
  clearTimeout(alive);
});
