import assert from "node:assert/strict";
import { Batcher } from "./batcher.ts";

Deno.test("Batcher: items pushed while a batch is in flight go out together in the next", async () => {
  const batches: number[][] = [];
  const releases: (() => void)[] = [];
  const batcher = new Batcher<number>(async (batch) => {
    batches.push(batch);
    await new Promise<void>((r) => releases.push(r));
  }, 3);
  const settle = () => new Promise((r) => setTimeout(r, 0));
  batcher.push(1);
  batcher.push(2);
  batcher.push(3);
  assert.deepEqual(batches, [[1]]);
  // A full batch waiting starts a second one in flight; what comes next waits.
  batcher.push(4);
  assert.deepEqual(batches, [[1], [2, 3, 4]]);
  batcher.push(5);
  batcher.push(6);
  releases[1]!();
  await settle();
  assert.equal(batches.length, 2, "one batch still in flight and no full batch waiting");
  releases[0]!();
  await settle();
  assert.deepEqual(batches, [[1], [2, 3, 4], [5, 6]]);
  releases[2]!();
  await settle();
});
