import assert from "node:assert/strict";
import { mapLimited } from "./map_limited.ts";

Deno.test("mapLimited() never runs more than the limit at once, and keeps the items' order", async () => {
  let running = 0;
  let peak = 0;
  const seen: number[] = [];
  const out = await mapLimited([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
    running++;
    peak = Math.max(peak, running);
    await Promise.resolve();
    seen.push(n);
    running--;
    return n * 10;
  });
  assert.equal(peak, 3);
  assert.deepEqual(seen.sort(), [1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(out, [10, 20, 30, 40, 50, 60, 70]);
});

Deno.test("mapLimited() rejects with the first failure", async () => {
  await assert.rejects(
    mapLimited(
      [1, 2, 3],
      2,
      (n) => n === 2 ? Promise.reject(new Error("two")) : Promise.resolve(),
    ),
    { message: "two" },
  );
});
