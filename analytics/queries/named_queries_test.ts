import assert from "node:assert/strict";
import { insertRows } from "./insert_rows.ts";
import { openLocalTable } from "./local_table.ts";
import {
  NAMED_QUERIES,
  QUERY_NAMES,
  type QueryName,
  type QueryResult,
  rolledScans,
  runNamedQuery,
} from "./named_queries.ts";
import { attachRollup } from "./rollup.ts";
import { createScanSharing } from "./shared_scan.ts";
import type { PageViewSource } from "./source.ts";
import type { QueryRange } from "./range.ts";
import { KNOWN_ROWS, PANEL_ROWS, testRow } from "./_test_rows.ts";

const TWO_DAYS = { from: "2026-01-31", to: "2026-02-01" };
const humans: QueryRange = { ...TWO_DAYS, includeBots: false };
const everyone: QueryRange = { ...TWO_DAYS, includeBots: true };

type Run = (name: QueryName, range: QueryRange) => ReturnType<typeof runNamedQuery>;

/**
 * Clocks for the roll-up: every day of the rows closed; only 2026-01-31 (and before); the
 * first two days of {@linkcode WEEK} and all before.
 */
const ROLLUP_CLOCKS = ["2027-01-01T00:00:00Z", "2026-02-01T12:00:00Z", "2026-03-04T01:00:00Z"]
  .map((t) => Date.parse(t));

/**
 * Runs `fn` on a table of `rows` every way the queries run: every query scanning alone, then
 * every query reading the scans it shares with the page's other queries (as the dashboard
 * runs them); then both again with a daily roll-up attached, for each of
 * {@linkcode ROLLUP_CLOCKS} (closed days read from the roll-up, the others raw). Each known
 * answer holds every way.
 */
async function withRows(fn: (run: Run) => Promise<void>, rows = KNOWN_ROWS): Promise<void> {
  using table = await openLocalTable();
  await insertRows(table, rows);
  const sources: PageViewSource[] = [table];
  for (const [i, now] of ROLLUP_CLOCKS.entries()) {
    const rollup = await attachRollup(table, {
      path: ":memory:",
      alias: `rollup_${i}`,
      scans: rolledScans(),
      now: () => now,
    });
    sources.push({ ...table, rollup });
  }
  for (const source of sources) {
    await fn((name, range) => runNamedQuery(source, name, range));
    const scans = createScanSharing();
    await fn((name, range) => runNamedQuery(source, name, range, { scans }));
  }
}

/** The first week of March 2026; its previous range is the last week of February. */
const WEEK = { from: "2026-03-01", to: "2026-03-07" };
const weekHumans: QueryRange = { ...WEEK, includeBots: false };
const weekEveryone: QueryRange = { ...WEEK, includeBots: true };
const LAST_FEBRUARY_WEEK = { from: "2026-02-22", to: "2026-02-28" };

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
  const scans = createScanSharing();
  const both = (name: QueryName) =>
    Promise.all([
      runNamedQuery(source, name, range),
      runNamedQuery(source, name, range, { scans }),
    ]);
  for (const visitors of await both("unique_visitors")) {
    assert.deepEqual(
      visitors.rows,
      ["09", "10", "11", "12", "13", "14", "15"].map((d) => ({
        day: `2026-01-${d}`,
        visitors: keysPerDay.get(`2026-01-${d}`)?.size ?? 0,
      })),
    );
  }

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
  for (const referrers of await both("referrers")) assert.deepEqual(referrers.rows, expected);
});

Deno.test("devices, browsers, os: page views by the user agent's classes, unknown for old rows", async () => {
  await withRows(async (run) => {
    const devices = await run("devices", weekHumans);
    assert.deepEqual(devices.rows, [
      { device: "desktop", views: 3 },
      { device: "tablet", views: 2 },
      { device: "mobile", views: 1 },
      { device: "unknown", views: 1 },
    ]);
    assert.equal(devices.total, 7);
    assert.deepEqual((await run("devices", weekEveryone)).rows, [
      { device: "bot", views: 3 },
      { device: "desktop", views: 3 },
      { device: "tablet", views: 2 },
      { device: "mobile", views: 1 },
      { device: "unknown", views: 1 },
    ]);
    assert.deepEqual((await run("browsers", weekHumans)).rows, [
      { browser: "Safari", views: 3 },
      { browser: "Firefox", views: 2 },
      { browser: "Chrome", views: 1 },
      { browser: "unknown", views: 1 },
    ]);
    const os = await run("os", weekHumans);
    assert.deepEqual(os.rows, [
      { os: "Linux", views: 2 },
      { os: "iPadOS", views: 2 },
      { os: "Windows", views: 1 },
      { os: "iOS", views: 1 },
      { os: "unknown", views: 1 },
    ]);
    assert.equal(os.total, 7);
  }, PANEL_ROWS);
});

Deno.test("channels: page views by channel; entry_pages: each visitor's first page view of a day", async () => {
  await withRows(async (run) => {
    const channels = await run("channels", weekHumans);
    assert.deepEqual(channels.rows, [
      { channel: "email", views: 2 },
      { channel: "ai", views: 1 },
      { channel: "direct", views: 1 },
      { channel: "search", views: 1 },
      { channel: "social", views: 1 },
      { channel: "unknown", views: 1 },
    ]);
    assert.equal(channels.total, 7);
    // v1's script before its first page is no entry; v3's two pages in one instant enter at "/";
    // v1 enters again the next day; v4 saw only 404s.
    const entries = await run("entry_pages", weekHumans);
    assert.deepEqual(entries.rows, [
      { path: "/", entries: 3 },
      { path: "/about", entries: 1 },
      { path: "/blog/", entries: 1 },
    ]);
    assert.equal(entries.total, 5);
    assert.deepEqual(entries.previous, { ...LAST_FEBRUARY_WEEK, total: 2 });
    assert.equal(entries.change, 1.5);
  }, PANEL_ROWS);
});

Deno.test("campaigns, not_found and bots: rows, totals and the bots toggle", async () => {
  await withRows(async (run) => {
    const campaigns = await run("campaigns", weekHumans);
    assert.deepEqual(campaigns.rows, [
      { utm_source: "newsletter", utm_medium: "email", utm_campaign: "march", views: 2 },
      { utm_source: "google", utm_medium: null, utm_campaign: null, views: 1 },
      { utm_source: "mastodon", utm_medium: "social", utm_campaign: "launch", views: 1 },
    ]);
    assert.equal(campaigns.total, 4);
    const missing = await run("not_found", weekHumans);
    assert.deepEqual(missing.rows, [
      { path: "/missing", referrer: "https://example.com/about", requests: 2 },
      { path: "/old.css", referrer: null, requests: 1 },
    ]);
    assert.equal(missing.total, 3);
    assert.deepEqual(missing.previous, { ...LAST_FEBRUARY_WEEK, total: 1 });
    assert.equal(missing.change, 2);
    const bots = await run("bots", weekEveryone);
    assert.deepEqual(bots.rows, [
      { category: "ai", name: "GPTBot", requests: 2 },
      { category: "search", name: "Googlebot", requests: 1 },
      { category: "unknown", name: "unknown", requests: 1 },
    ]);
    assert.equal(bots.total, 4);
    assert.equal(bots.change, 3);
    // Bots excluded: no bot row counts, in the range or before it.
    const none = await run("bots", weekHumans);
    assert.deepEqual(none.rows, []);
    assert.equal(none.total, 0);
    assert.deepEqual(none.previous, { ...LAST_FEBRUARY_WEEK, total: 0 });
    assert.equal(none.change, null);
  }, PANEL_ROWS);
});

Deno.test("totals compare with the previous range across the month boundary", async () => {
  await withRows(async (run) => {
    const views = await run("views", weekHumans);
    assert.equal(views.total, 7);
    assert.deepEqual(views.previous, { ...LAST_FEBRUARY_WEEK, total: 2 });
    assert.equal(views.change, 2.5);
    const visitors = await run("unique_visitors", weekHumans);
    assert.equal(visitors.total, 6);
    assert.deepEqual(visitors.previous, { ...LAST_FEBRUARY_WEEK, total: 2 });
    // One day, hourly: 1 March against 28 February.
    const day = await run("views", { from: "2026-03-01", to: "2026-03-01", includeBots: false });
    assert.equal(day.unit, "hour");
    assert.equal(day.total, 3);
    assert.deepEqual(day.previous, { from: "2026-02-28", to: "2026-02-28", total: 1 });
    assert.equal(day.change, 2);
    const requests = await run("status_codes", weekEveryone);
    assert.deepEqual(requests.previous, { ...LAST_FEBRUARY_WEEK, total: 4 });
    assert.equal(requests.total, 16);
  }, PANEL_ROWS);
});

Deno.test("an empty previous range gives its total as 0 and no change; lists without a total get none", async () => {
  await withRows(async (run) => {
    const range: QueryRange = { from: "2026-02-15", to: "2026-02-21", includeBots: false };
    const views = await run("views", range);
    assert.equal(views.total, 1);
    assert.deepEqual(views.previous, { from: "2026-02-08", to: "2026-02-14", total: 0 });
    assert.equal(views.change, null);
    const campaigns = await run("campaigns", weekHumans);
    assert.equal(campaigns.previous?.total, 0);
    assert.equal(campaigns.change, null);
    const paths = await run("top_paths", weekHumans);
    assert.equal("previous" in paths || "change" in paths || "total" in paths, false);
    // A range and its previous one both empty: 0 against 0, no change.
    const empty = await run("entry_pages", {
      from: "2025-01-01",
      to: "2025-01-31",
      includeBots: true,
    });
    assert.deepEqual([empty.rows, empty.total, empty.previous?.total, empty.change], [
      [],
      0,
      0,
      null,
    ]);
  }, PANEL_ROWS);
});

Deno.test("a ranked list's total counts every group, not only the top 20", async () => {
  const rows = Array.from(
    { length: 25 },
    (_, i) => testRow("2026-03-02T10:00:00.000Z", { uri: `/gone/${i}`, status: 404 }),
  );
  await withRows(async (run) => {
    const r = await run("not_found", weekHumans);
    assert.equal(r.rows.length, 20);
    assert.equal(r.total, 25);
    assert.equal(Object.keys(r.rows[0]!).join(), "path,referrer,requests");
  }, rows);
});

/** A source that counts what it lends connections for (one scan or query each). */
function counting(source: PageViewSource): { source: PageViewSource; uses: () => number } {
  let uses = 0;
  return {
    source: {
      ...source,
      use(fn) {
        uses++;
        return source.use(fn);
      },
    },
    uses: () => uses,
  };
}

Deno.test("the page's queries asked at once read each shared scan once, with the answers of each alone", async () => {
  using table = await openLocalTable();
  await insertRows(table, PANEL_ROWS);
  const { source, uses } = counting(table);
  const page = (run: (name: QueryName) => Promise<QueryResult>) =>
    Promise.all(QUERY_NAMES.map(run));
  for (const range of [weekHumans, weekEveryone, { ...weekHumans, to: "2026-03-02" }]) {
    const readers = QUERY_NAMES.map((n) => NAMED_QUERIES[n]);
    // Alone: each query once, and again for its previous range when it has a total.
    const reads = (qs: typeof readers) => qs.reduce((n, q) => n + (q.total ? 2 : 1), 0);
    const before = uses();
    const alone = await page((name) => runNamedQuery(source, name, range));
    assert.equal(uses() - before, reads(readers));
    const scans = createScanSharing();
    const shared = await page((name) => runNamedQuery(source, name, range, { scans }));
    assert.deepEqual(shared, alone);
    // Shared: each scan once for the range and once for the previous range; the rest as alone.
    const scanned = new Set(readers.flatMap((q) => q.shared ? [q.shared.scan] : []));
    assert.deepEqual([...scanned].sort(), [
      "downloads",
      "feeds",
      "page_views",
      "requests",
      "visits",
    ]);
    assert.equal(
      uses() - before - reads(readers),
      2 * scanned.size + reads(readers.filter((q) => !q.shared)),
    );
  }
});

Deno.test("entry_pages and unique_visitors read together: an asset-only visit is a visitor without an entry", async () => {
  const day = "2026-03-02";
  const rows = [
    testRow(`${day}T09:00:00.000Z`, { uri: "/style.css", content_type: "text/css" }),
    testRow(`${day}T10:00:00.000Z`, { uri: "/a" }),
    testRow(`${day}T11:00:00.000Z`, { uri: "/b" }),
    testRow(`${day}T08:00:00.000Z`, {
      uri: "/img.png",
      content_type: "image/png",
      visitor_key: "v2",
    }),
    // An exact tie in time: the path decides, so the answer never changes between runs.
    testRow(`${day}T12:00:00.000Z`, { uri: "/b", visitor_key: "v3" }),
    testRow(`${day}T12:00:00.000Z`, { uri: "/a", visitor_key: "v3" }),
  ];
  using source = await openLocalTable();
  await insertRows(source, rows);
  const range: QueryRange = { from: day, to: day, includeBots: false };
  const scans = createScanSharing();
  const [visitors, entries] = await Promise.all([
    runNamedQuery(source, "unique_visitors", range, { scans }),
    runNamedQuery(source, "entry_pages", range, { scans }),
  ]);
  assert.deepEqual(visitors.rows, [{ day, visitors: 3 }]);
  assert.deepEqual(entries.rows, [{ path: "/a", entries: 2 }]);
  assert.equal(entries.total, 2);
  const alone = await runNamedQuery(source, "entry_pages", range);
  assert.deepEqual(alone.rows, entries.rows);
});

Deno.test("downloads: a file's ranges are one download per visitor and day, by file and first referrer", async () => {
  const post = "https://a.example/post";
  const file = (time: string, fields: Parameters<typeof testRow>[1]) =>
    testRow(time, { uri: "/files/guide.pdf", content_type: "application/pdf", ...fields });
  const rows = [
    file("2026-03-02T10:00:00.000Z", { status: 206, referrer: post }),
    file("2026-03-02T10:01:00.000Z", { status: 206, referrer: "https://b.example/" }),
    file("2026-03-02T11:00:00.000Z", { visitor_key: "v2" }),
    file("2026-03-03T09:00:00.000Z", { referrer: post }),
    file("2026-03-02T12:00:00.000Z", { uri: "/files/app.DMG", visitor_key: "v3" }),
    file("2026-03-02T12:01:00.000Z", { uri: "/files/app.dmg", method: "HEAD" }),
    file("2026-03-02T12:02:00.000Z", { uri: "/files/app.dmg", status: 404 }),
    file("2026-03-02T12:03:00.000Z", { uri: "/img/x.png", content_type: "image/png" }),
    file("2026-03-02T12:04:00.000Z", { visitor_key: "bot", is_bot: true }),
  ];
  await withRows(async (run) => {
    const d = await run("downloads", weekHumans);
    assert.deepEqual(d.rows, [
      { path: "/files/guide.pdf", referrer: post, downloads: 2 },
      { path: "/files/app.DMG", referrer: null, downloads: 1 },
      { path: "/files/guide.pdf", referrer: null, downloads: 1 },
    ]);
    assert.equal(d.total, 4);
    assert.equal((await run("downloads", weekEveryone)).total, 5);
  }, rows);
});

Deno.test("feed_subscribers: a reader's latest stated count, else its visitors on its latest day", async () => {
  const feed = (time: string, fields: Parameters<typeof testRow>[1]) =>
    testRow(time, { uri: "/feed.xml", content_type: "application/rss+xml", ...fields });
  const reader = (name: string, feed_subscribers: number) => ({
    is_bot: true,
    bot_category: "other",
    bot_name: name,
    browser: null,
    visitor_key: name,
    feed_subscribers,
  });
  const rows = [
    feed("2026-03-02T10:00:00.000Z", reader("Feedly", 10)),
    feed("2026-03-03T09:00:00.000Z", { ...reader("Feedly", 12), status: 304 }),
    feed("2026-03-02T08:00:00.000Z", reader("Inoreader", 5)),
    feed("2026-03-02T10:00:00.000Z", {}),
    feed("2026-03-02T11:00:00.000Z", { visitor_key: "v2" }),
    feed("2026-03-03T10:00:00.000Z", {}),
    feed("2026-03-02T10:00:00.000Z", {
      uri: "/posts.xml",
      content_type: "application/atom+xml; charset=utf-8",
      visitor_key: "v3",
    }),
    feed("2026-03-02T10:30:00.000Z", { uri: "/about", content_type: "text/html" }),
  ];
  await withRows(async (run) => {
    const all = await run("feed_subscribers", weekEveryone);
    assert.deepEqual(all.rows, [
      { reader: "Feedly", feed: "/feed.xml", subscribers: 12, basis: "stated" },
      { reader: "Inoreader", feed: "/feed.xml", subscribers: 5, basis: "stated" },
      { reader: "Firefox", feed: "/feed.xml", subscribers: 1, basis: "visitors" },
      { reader: "Firefox", feed: "/posts.xml", subscribers: 1, basis: "visitors" },
    ]);
    assert.equal(all.total, 19);
    assert.equal((await run("feed_subscribers", weekHumans)).total, 2);
  }, rows);
});

Deno.test("ai_crawler_pages: each AI crawler's requests by path, only while bots count", async () => {
  const crawler = (time: string, name: string, category: string, uri: string) =>
    testRow(time, { uri, is_bot: true, bot_category: category, bot_name: name, browser: null });
  const rows = [
    crawler("2026-03-02T10:00:00.000Z", "GPTBot", "ai", "/a"),
    crawler("2026-03-03T10:00:00.000Z", "GPTBot", "ai", "/a"),
    crawler("2026-03-02T11:00:00.000Z", "GPTBot", "ai", "/b"),
    crawler("2026-03-02T12:00:00.000Z", "ClaudeBot", "ai", "/a"),
    crawler("2026-03-02T13:00:00.000Z", "Googlebot", "search", "/a"),
    testRow("2026-03-02T14:00:00.000Z", { uri: "/a" }),
  ];
  await withRows(async (run) => {
    const all = await run("ai_crawler_pages", weekEveryone);
    assert.deepEqual(all.rows, [
      { crawler: "GPTBot", path: "/a", reads: 2 },
      { crawler: "ClaudeBot", path: "/a", reads: 1 },
      { crawler: "GPTBot", path: "/b", reads: 1 },
    ]);
    assert.equal(all.total, 4);
    const humansOnly = await run("ai_crawler_pages", weekHumans);
    assert.deepEqual([humansOnly.rows, humansOnly.total], [[], 0]);
  }, rows);
});

Deno.test("cdn_cost and cdn_cost_paths: bytes sent and cache hits per day and per path", async () => {
  const rows = [
    testRow("2026-03-02T10:00:00.000Z", { uri: "/a", bytes_sent: 100 }),
    testRow("2026-03-02T11:00:00.000Z", { uri: "/a", bytes_sent: 200, result_type: "RefreshHit" }),
    testRow("2026-03-02T12:00:00.000Z", { uri: "/b", bytes_sent: 300, result_type: "Miss" }),
    testRow("2026-03-03T12:00:00.000Z", { uri: "/c", bytes_sent: null, result_type: "Error" }),
  ];
  await withRows(async (run) => {
    const days = await run("cdn_cost", weekHumans);
    assert.equal(days.rows.length, 7);
    assert.deepEqual(days.rows.slice(0, 3), [
      { day: "2026-03-01", requests: 0, bytes: 0, hit_ratio: null },
      { day: "2026-03-02", requests: 3, bytes: 600, hit_ratio: 2 / 3 },
      { day: "2026-03-03", requests: 1, bytes: 0, hit_ratio: 0 },
    ]);
    assert.equal(days.total, 600);
    const paths = await run("cdn_cost_paths", weekHumans);
    assert.deepEqual(paths.rows, [
      { path: "/a", requests: 2, bytes: 300, hit_ratio: 1 },
      { path: "/b", requests: 1, bytes: 300, hit_ratio: 0 },
      { path: "/c", requests: 1, bytes: 0, hit_ratio: 0 },
    ]);
    assert.equal(paths.total, 600);
  }, rows);
});
