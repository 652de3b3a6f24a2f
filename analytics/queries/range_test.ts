import assert from "node:assert/strict";
import { botsIncludedByDefault, parseQueryRange, rangeDays, timeBucket, utcDay } from "./range.ts";

const parse = (q: string, bots = false) => parseQueryRange(new URLSearchParams(q), bots);

Deno.test("parseQueryRange() takes a range and the configured bots default", () => {
  assert.deepEqual(parse("from=2026-01-30&to=2026-02-02"), {
    range: { from: "2026-01-30", to: "2026-02-02", includeBots: false },
  });
  assert.deepEqual(parse("from=2026-01-30&to=2026-01-30", true), {
    range: { from: "2026-01-30", to: "2026-01-30", includeBots: true },
  });
});

Deno.test("parseQueryRange() lets a request override the bots rule", () => {
  assert.deepEqual(parse("from=2026-01-01&to=2026-01-02&bots=include"), {
    range: { from: "2026-01-01", to: "2026-01-02", includeBots: true },
  });
  assert.deepEqual(parse("from=2026-01-01&to=2026-01-02&bots=exclude", true), {
    range: { from: "2026-01-01", to: "2026-01-02", includeBots: false },
  });
});

Deno.test("parseQueryRange() refuses unknown, repeated, missing and bad parameters at once", () => {
  assert.deepEqual(parse("from=2026-02-30&sql=select&bots=maybe"), {
    errors: [
      'unknown parameter "sql" (accepted: from, to, bots)',
      'from must be a UTC day YYYY-MM-DD, got "2026-02-30"',
      "to is required (YYYY-MM-DD)",
      "bots must be include or exclude",
    ],
  });
  assert.deepEqual(parse("from=2026-01-01&from=2026-01-02&to=2026-01-03"), {
    errors: ['parameter "from" given twice'],
  });
});

Deno.test("parseQueryRange() refuses an inverted range", () => {
  assert.deepEqual(parse("from=2026-02-02&to=2026-02-01"), {
    errors: ["the range is inverted: from 2026-02-02 is after to 2026-02-01"],
  });
});

Deno.test("timeBucket() is hourly up to two days and daily after", () => {
  assert.equal(timeBucket({ from: "2026-01-31", to: "2026-02-01" }), "hour");
  assert.equal(timeBucket({ from: "2026-01-31", to: "2026-02-02" }), "day");
  assert.equal(rangeDays({ from: "2026-02-27", to: "2026-03-01" }), 3);
});

Deno.test("bots: flag includes by default, filter excludes; utcDay() offsets days", () => {
  assert.equal(botsIncludedByDefault("flag"), true);
  assert.equal(botsIncludedByDefault("filter"), false);
  assert.equal(utcDay(Date.parse("2026-03-01T23:59:00Z"), -1), "2026-02-28");
});
