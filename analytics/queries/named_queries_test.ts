import assert from "node:assert/strict";
import { insertRows } from "./insert_rows.ts";
import { openLocalTable } from "./local_table.ts";
import { NAMED_QUERIES, type QueryName, runNamedQuery } from "./named_queries.ts";
import type { QueryRange } from "./range.ts";
import { KNOWN_ROWS, testRow } from "./_test_rows.ts";

const TWO_DAYS = { from: "2026-01-31", to: "2026-02-01" };
const humans: QueryRange = { ...TWO_DAYS, includeBots: false };
const everyone: QueryRange = { ...TWO_DAYS, includeBots: true };

async function withRows(
  fn: (
    run: (name: QueryName, range: QueryRange) => ReturnType<typeof runNamedQuery>,
  ) => Promise<void>,
): Promise<void> {
  using source = await openLocalTable();
  await insertRows(source, KNOWN_ROWS);
  await fn((name, range) => runNamedQuery(source, name, range));
}

Deno.test("views: hourly for two days, bots excluded and then included", async () => {
  await withRows(async (run) => {
    const h = await run("views", humans);
    assert.equal(h.unit, "hour");
    assert.equal(h.rows.length, 48);
    assert.equal(h.total, 5);
    const nonZero = h.rows.filter((r) => r.views !== 0);
    assert.deepEqual(nonZero, [
      { bucket: "2026-01-31T10:00Z", views: 2 },
      { bucket: "2026-01-31T11:00Z", views: 1 },
      { bucket: "2026-02-01T09:00Z", views: 1 },
      { bucket: "2026-02-01T10:00Z", views: 1 },
    ]);
    const all = await run("views", everyone);
    assert.equal(all.total, 7);
    assert.deepEqual(all.rows.at(-1), { bucket: "2026-02-01T23:00Z", views: 1 });
    assert.equal(all.bots, "include");
  });
});

Deno.test("views: daily over a range that crosses a month, with empty days as zero", async () => {
  await withRows(async (run) => {
    const r = await run("views", { from: "2026-01-30", to: "2026-02-02", includeBots: false });
    assert.equal(r.unit, "day");
    assert.deepEqual(r.rows, [
      { bucket: "2026-01-30", views: 0 },
      { bucket: "2026-01-31", views: 3 },
      { bucket: "2026-02-01", views: 2 },
      { bucket: "2026-02-02", views: 0 },
    ]);
  });
});

Deno.test("unique_visitors: per day, and the total is the sum of the days", async () => {
  await withRows(async (run) => {
    const h = await run("unique_visitors", humans);
    assert.deepEqual(h.rows, [
      { day: "2026-01-31", visitors: 2 },
      { day: "2026-02-01", visitors: 2 },
    ]);
    // v1 came on both days: a distinct count across days would say 3, the sum says 4.
    assert.equal(h.total, 4);
    assert.equal((await run("unique_visitors", everyone)).total, 6);
  });
});

Deno.test("top_paths, referrers, countries count page views only", async () => {
  await withRows(async (run) => {
    assert.deepEqual((await run("top_paths", humans)).rows, [
      { path: "/", views: 3 },
      { path: "/about", views: 1 },
      { path: "/blog/", views: 1 },
    ]);
    assert.deepEqual((await run("top_paths", everyone)).rows[0], { path: "/", views: 5 });
    assert.deepEqual((await run("referrers", humans)).rows, [
      { referrer: "news.ycombinator.com", views: 1 },
      { referrer: "www.google.com", views: 1 },
    ]);
    assert.deepEqual((await run("countries", humans)).rows, [
      { country: "DE", views: 3 },
      { country: "FR", views: 1 },
      { country: "unknown", views: 1 },
    ]);
    assert.deepEqual((await run("countries", everyone)).rows, [
      { country: "DE", views: 3 },
      { country: "US", views: 2 },
      { country: "FR", views: 1 },
      { country: "unknown", views: 1 },
    ]);
  });
});

Deno.test("status_codes, cache_hit_ratio and row_count count every request", async () => {
  await withRows(async (run) => {
    const s = await run("status_codes", humans);
    assert.deepEqual(s.rows, [
      { status: 200, requests: 6 },
      { status: 304, requests: 1 },
      { status: 404, requests: 1 },
    ]);
    assert.equal(s.total, 8);
    assert.equal((await run("status_codes", everyone)).total, 10);
    assert.deepEqual((await run("cache_hit_ratio", humans)).rows, [
      { day: "2026-01-31", hits: 3, requests: 4, ratio: 0.75 },
      { day: "2026-02-01", hits: 2, requests: 4, ratio: 0.5 },
    ]);
    assert.deepEqual((await run("cache_hit_ratio", everyone)).rows, [
      { day: "2026-01-31", hits: 3, requests: 5, ratio: 0.6 },
      { day: "2026-02-01", hits: 3, requests: 5, ratio: 0.6 },
    ]);
    assert.equal((await run("row_count", humans)).total, 8);
    assert.equal((await run("row_count", everyone)).total, 10);
  });
});

Deno.test("every query answers an empty range with zeros or no rows", async () => {
  await withRows(async (run) => {
    const range: QueryRange = { from: "2026-03-01", to: "2026-03-07", includeBots: true };
    const views = await run("views", range);
    assert.equal(views.rows.length, 7);
    assert.equal(views.total, 0);
    assert.equal((await run("unique_visitors", range)).total, 0);
    for (const name of ["top_paths", "referrers", "countries", "status_codes"] as const) {
      assert.deepEqual((await run(name, range)).rows, [], name);
    }
    assert.ok((await run("cache_hit_ratio", range)).rows.every((r) => r.ratio === null));
    assert.equal((await run("row_count", range)).total, 0);
  });
});

Deno.test("a single day is one partition: only its rows count", async () => {
  await withRows(async (run) => {
    const r = await run("row_count", { from: "2026-02-01", to: "2026-02-01", includeBots: true });
    assert.equal(r.total, 5);
  });
});

Deno.test("every named query has a title, a description and its columns", () => {
  for (const q of Object.values(NAMED_QUERIES)) {
    assert.ok(q.title && q.description.length > 20 && q.columns.length > 0, q.name);
  }
});

Deno.test("unique_visitors and referrers agree with a row-by-row count on varied rows", async () => {
  // The queries group before they count (pairs, distinct Referers); this checks the grouped
  // answer against the definition applied to each row, over many days, keys and Referers.
  const referrers = [
    null,
    "https://News.YCombinator.com/item?id=1",
    "https://news.ycombinator.com:443/",
    "http://www.google.com/search?q=x",
    "https://EXAMPLE.com/about",
    "https://example.com",
    "android-app://com.slack/",
    "not a url",
    "https:///no-host",
    "HTTPS://www.Google.com#top",
  ];
  const rows = Array.from(
    { length: 600 },
    (_, i) =>
      testRow(
        `2026-01-${String(10 + (i % 5)).padStart(2, "0")}T${
          String(i % 24).padStart(2, "0")
        }:00:00.000Z`,
        {
          visitor_key: `v${(i * 7) % 23}`,
          referrer: referrers[(i * 3) % referrers.length]!,
          host: i % 4 === 0 ? "Example.COM" : "example.com",
          is_bot: i % 9 === 0,
          status: i % 11 === 0 ? 404 : 200,
        },
      ),
  );
  using source = await openLocalTable();
  await insertRows(source, rows);
  const range: QueryRange = { from: "2026-01-09", to: "2026-01-15", includeBots: false };
  const humansOnly = rows.filter((r) => !r.is_bot);

  const keysPerDay = new Map<string, Set<string>>();
  for (const r of humansOnly) {
    keysPerDay.set(r.day, (keysPerDay.get(r.day) ?? new Set()).add(r.visitor_key));
  }
  const visitors = await runNamedQuery(source, "unique_visitors", range);
  assert.deepEqual(
    visitors.rows,
    ["09", "10", "11", "12", "13", "14", "15"].map((d) => ({
      day: `2026-01-${d}`,
      visitors: keysPerDay.get(`2026-01-${d}`)?.size ?? 0,
    })),
  );

  const perHost = new Map<string, number>();
  for (const r of humansOnly) {
    if (r.status !== 200 || r.referrer === null) continue;
    const host = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/:?#]+)/.exec(r.referrer)?.[1]?.toLowerCase();
    if (!host || host === r.host?.toLowerCase()) continue;
    perHost.set(host, (perHost.get(host) ?? 0) + 1);
  }
  const expected = [...perHost].map(([referrer, views]) => ({ referrer, views }))
    .sort((a, b) => b.views - a.views || (a.referrer < b.referrer ? -1 : 1));
  assert.ok(expected.length >= 3);
  assert.deepEqual((await runNamedQuery(source, "referrers", range)).rows, expected);
});
