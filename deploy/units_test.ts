import assert from "node:assert/strict";
import { formatBytes, humanDuration } from "./units.ts";

Deno.test("formatBytes() counts in powers of 1024", () => {
  assert.equal(formatBytes(0), "0 B");
  assert.equal(formatBytes(1023), "1023 B");
  assert.equal(formatBytes(1536), "1.5 KB");
  assert.equal(formatBytes(100 * 1024 * 1024), "100.0 MB");
});

Deno.test("humanDuration() reads as ms, s, minutes with seconds, hours with minutes", () => {
  assert.equal(humanDuration(850), "850 ms");
  assert.equal(humanDuration(42_000), "42 s");
  assert.equal(humanDuration(185_000), "3m 05s");
  assert.equal(humanDuration(20 * 60_000), "20m 00s");
  assert.equal(humanDuration(3_720_000), "1h 02m");
});
