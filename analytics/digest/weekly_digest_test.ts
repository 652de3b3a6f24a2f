import assert from "node:assert/strict";
import { insertRows } from "../queries/insert_rows.ts";
import { openLocalTable } from "../queries/local_table.ts";
import { testRow } from "../queries/_test_rows.ts";
import { collectDigest, digestWeeks, renderDigest, type WeeklyDigest } from "./weekly_digest.ts";

/** A Wednesday: last week is 2026-03-02 (Monday) to 2026-03-08. */
const NOW = Date.parse("2026-03-11T10:00:00Z");

Deno.test("digestWeeks(): the last complete Monday-to-Sunday week and the one before", () => {
  const weeks = {
    week: { from: "2026-03-02", to: "2026-03-08" },
    previousWeek: { from: "2026-02-23", to: "2026-03-01" },
  };
  assert.deepEqual(digestWeeks(NOW), weeks);
  // On a Monday the week that ended the day before; on a Sunday the one before it.
  assert.deepEqual(digestWeeks(Date.parse("2026-03-09T00:00:00Z")), weeks);
  assert.deepEqual(digestWeeks(Date.parse("2026-03-15T23:59:59Z")), weeks);
});

Deno.test("collectDigest(): last week's figures against the week before, from the named queries", async () => {
  const missing = (time: string, uri: string, referrer: string | null) =>
    testRow(time, { uri, status: 404, referrer, visitor_key: "v9", content_type: "text/html" });
  using source = await openLocalTable();
  await insertRows(source, [
    testRow("2026-03-02T10:00:00.000Z"),
    testRow("2026-03-03T10:00:00.000Z", {
      uri: "/a",
      visitor_key: "v2",
      referrer: "https://news.ycombinator.com/item?id=1",
    }),
    testRow("2026-03-04T10:00:00.000Z", { visitor_key: "v3" }),
    testRow("2026-03-03T11:00:00.000Z", { uri: "/f.pdf", content_type: "application/pdf" }),
    missing("2026-03-05T10:00:00.000Z", "/gone", "https://x.example/p"),
    missing("2026-03-05T11:00:00.000Z", "/old", null),
    testRow("2026-03-06T10:00:00.000Z", {
      uri: "/feed.xml",
      content_type: "application/rss+xml",
      visitor_key: "feedly",
      is_bot: true,
      bot_name: "Feedly",
      feed_subscribers: 7,
    }),
    // The week before.
    testRow("2026-02-24T10:00:00.000Z"),
    missing("2026-02-25T10:00:00.000Z", "/old", null),
    // After last week: not counted.
    testRow("2026-03-10T10:00:00.000Z"),
  ]);
  const digest = await collectDigest(source, { siteName: "blog", env: "production" }, NOW, true);
  assert.deepEqual(
    digest,
    {
      site: { siteName: "blog", env: "production" },
      week: { from: "2026-03-02", to: "2026-03-08" },
      previousWeek: { from: "2026-02-23", to: "2026-03-01" },
      bots: "include",
      views: { total: 3, previous: 1, change: 2 },
      visitors: { total: 6, previous: 2, change: 2 },
      downloads: { total: 1, previous: 0, change: null },
      feedSubscribers: { total: 7, previous: 0, change: null },
      topPages: [{ path: "/", views: 2 }, { path: "/a", views: 1 }],
      topReferrers: [{ referrer: "news.ycombinator.com", views: 1 }],
      newNotFound: [{ path: "/gone", referrer: "https://x.example/p", requests: 1 }],
      topDownloads: [{ path: "/f.pdf", downloads: 1 }],
    } satisfies WeeklyDigest,
  );
});

const DIGEST: WeeklyDigest = {
  site: { siteName: "blog", env: "production" },
  week: { from: "2026-03-02", to: "2026-03-08" },
  previousWeek: { from: "2026-02-23", to: "2026-03-01" },
  bots: "exclude",
  views: { total: 1200, previous: 1000, change: 0.2 },
  visitors: { total: 90, previous: 100, change: -0.1 },
  downloads: { total: 0, previous: 0, change: null },
  feedSubscribers: { total: 7, previous: 7, change: 0 },
  topPages: [{ path: "/a|b<script>", views: 3 }],
  topReferrers: [],
  newNotFound: [{ path: "/gone", referrer: null, requests: 2 }],
  topDownloads: [],
};

Deno.test("renderDigest(): Markdown tables with cells escaped, changes signed", () => {
  const md = renderDigest(DIGEST, "markdown");
  assert.match(md, /^# blog \(production\): week 2026-03-02 to 2026-03-08\n/);
  assert.match(md, /Compared against 2026-02-23 to 2026-03-01, bots excluded\./);
  assert.match(md, /\| Page views \| 1,200 \| 1,000 \| \+20 % \|/);
  assert.match(md, /\| Unique visitors \| 90 \| 100 \| −10 % \|/);
  assert.match(md, /\| Downloads \| 0 \| 0 \| new \|/);
  assert.match(md, /\| Feed subscribers \| 7 \| 7 \| ±0 % \|/);
  assert.match(md, /\| \/a\\\|b<script> \| 3 \|/);
  assert.match(md, /## Top referrers\n\nNone\./);
  assert.match(md, /\| \/gone \| – \| 2 \|/);
});

Deno.test("renderDigest(): an HTML mail body with every value escaped; JSON as collected", () => {
  const html = renderDigest(DIGEST, "html");
  assert.match(html, /^<!doctype html>/);
  assert.match(html, /<td>\/a\|b&lt;script&gt;<\/td><td>3<\/td>/);
  assert.ok(!html.includes("<script>"));
  assert.match(html, /<tr><th>Page views<\/th><td>1,200<\/td><td>1,000<\/td><td>\+20 %<\/td>/);
  assert.deepEqual(JSON.parse(renderDigest(DIGEST, "json")), DIGEST);
});
