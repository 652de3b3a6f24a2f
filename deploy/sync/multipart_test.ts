import assert from "node:assert/strict";
import { PART_SIZE, partSizeFor } from "./multipart.ts";

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

Deno.test("partSizeFor() keeps 16 MiB parts until a file would need more than 10,000", () => {
  assert.equal(partSizeFor(65 * MiB), PART_SIZE);
  assert.equal(partSizeFor(10_000 * PART_SIZE), PART_SIZE);
  const big = 200 * GiB;
  const size = partSizeFor(big);
  assert.equal(size, 21 * MiB);
  assert.ok(Math.ceil(big / size) <= 10_000);
  assert.equal(size % MiB, 0, "whole MiB");
  // Never under S3's 5 MiB minimum, whatever is asked.
  assert.equal(partSizeFor(100 * MiB, 1 * MiB), 5 * MiB);
  assert.equal(partSizeFor(12 * MiB, 5 * MiB), 5 * MiB);
});
