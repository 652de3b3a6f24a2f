import assert from "node:assert/strict";
import {
  botsIncludedByDefault,
  parseQueryRange,
  previousRange,
  rangeDays,
  timeBucket,
  utcDay,
} from "./range.ts";

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

Deno.test("previousRange() is as many days ending the day before, across month and year ends", () => {
  const prev = (from: string, to: string) => previousRange({ from, to, includeBots: true });
  assert.deepEqual(prev("2026-03-01", "2026-03-07"), {
    from: "2026-02-22",
    to: "2026-02-28",
    includeBots: true,
  });
  // 31 days of March compare with the 31 days before: February is shorter, so January's end.
  assert.deepEqual(prev("2026-03-01", "2026-03-31"), {
    from: "2026-01-29",
    to: "2026-02-28",
    includeBots: true,
  });
  assert.deepEqual(prev("2026-01-01", "2026-01-01"), {
    from: "2025-12-31",
    to: "2025-12-31",
    includeBots: true,
  });
  // A leap year's 29 February is a day like any other.
  assert.deepEqual(prev("2028-03-01", "2028-03-02"), {
    from: "2028-02-28",
    to: "2028-02-29",
    includeBots: true,
  });
});
