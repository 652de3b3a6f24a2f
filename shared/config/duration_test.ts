import assert from "node:assert/strict";
import { formatDuration, parseDuration } from "./duration.ts";

Deno.test("parseDuration() reads seconds, minutes, hours, days and compounds", () => {
  assert.equal(parseDuration("900s"), 900);
  assert.equal(parseDuration("15m"), 900);
  assert.equal(parseDuration("12h"), 43200);
  assert.equal(parseDuration("30d"), 2592000);
  assert.equal(parseDuration("1h30m"), 5400);
});

Deno.test("parseDuration() rejects bad input quoting it", () => {
  for (const bad of ["", "15", "15 minutes", "-5s", "1.5h", "m15", "10x"]) {
    assert.throws(() => parseDuration(bad), (e: Error) => e.message.includes(`"${bad}"`));
  }
});

Deno.test("formatDuration() round-trips through parseDuration()", () => {
  for (const s of [0, 1, 59, 60, 900, 3600, 86400 * 30, 5400]) {
    assert.equal(parseDuration(formatDuration(s)), s);
  }
  assert.equal(formatDuration(900), "15m");
});
