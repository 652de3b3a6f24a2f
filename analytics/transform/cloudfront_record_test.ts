import assert from "node:assert/strict";
import { mapCloudFrontRecord, SELECTED_LOG_FIELDS } from "./cloudfront_record.ts";
import { ROW_COLUMNS } from "./row.ts";
import { dailySalt, visitorKey } from "./visitor_key.ts";
import { PAGE_VIEW, TEST_SECRET } from "./_test_records.ts";

const saltFor = (day: string) => dailySalt(TEST_SECRET, day);
const UA = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0";

function row(record: unknown) {
  const out = mapCloudFrontRecord(record, saltFor);
  assert.ok("row" in out, JSON.stringify(out));
  return out.row;
}

Deno.test("mapCloudFrontRecord() maps every column from a CloudFront record", () => {
  assert.deepEqual(row(PAGE_VIEW), {
    event_time: "2026-11-23T10:00:00.123Z",
    day: "2026-11-23",
    host: "blog.example.com",
    uri: "/posts/hello/",
    query: null,
    method: "GET",
    status: 200,
    referrer: "https://news.example.org/",
    user_agent: null,
    country: "DE",
    asn: 3320,
    edge_location: "FRA56-P1",
    result_type: "Hit",
    bytes_sent: 5123,
    time_taken: 0.002,
    content_type: "text/html",
    protocol: "https",
    request_id: "abcDEF123==",
    visitor_key: visitorKey(saltFor("2026-11-23"), "203.0.113.9", UA),
    is_bot: false,
    browser: "Firefox",
    browser_version: 140,
    os: "Linux",
    device: "desktop",
    utm_source: "feed",
    utm_medium: null,
    utm_campaign: null,
    channel: "other",
    bot_category: null,
    bot_name: null,
    feed_subscribers: null,
  });
});

Deno.test("mapCloudFrontRecord() stores neither the user agent nor the query string", () => {
  const out = row({
    ...PAGE_VIEW,
    "cs-uri-query": "utm_campaign=Spring&token=s3cr3t&email=a%40mail.test",
  });
  assert.equal(out.user_agent, null);
  assert.equal(out.query, null);
  assert.equal(out.utm_campaign, "spring");
  const text = JSON.stringify(out);
  for (const secret of ["s3cr3t", "mail.test", "Gecko", "rv:140"]) {
    assert.ok(!text.includes(secret), secret);
  }
});

Deno.test("mapCloudFrontRecord() names a bot and gives it no browser", () => {
  const out = row({
    ...PAGE_VIEW,
    "cs(User-Agent)":
      "Mozilla/5.0%20AppleWebKit/537.36%20(KHTML,%20like%20Gecko;%20compatible;%20ClaudeBot/1.0;%20+claudebot@anthropic.com)",
  });
  assert.deepEqual(
    [out.is_bot, out.device, out.bot_category, out.bot_name, out.browser, out.os],
    [true, "bot", "ai", "ClaudeBot", null, null],
  );
});

Deno.test("mapCloudFrontRecord() counts a referrer on the site's own host as direct", () => {
  const own = row({ ...PAGE_VIEW, "cs(Referer)": "https://www.blog.example.com/posts/" });
  assert.equal(own.channel, "direct");
  assert.equal(own.referrer, "https://www.blog.example.com/posts/");
  const withQuery = row({ ...PAGE_VIEW, "cs(Referer)": "https://mail.example.net/r%3Fid%3D4#m" });
  assert.equal(
    withQuery.referrer,
    "https://mail.example.net/r",
    "stored without query or fragment",
  );
  assert.equal(row({ ...PAGE_VIEW, "cs(Referer)": "https://chatgpt.com/" }).channel, "ai");
  assert.equal(row({ ...PAGE_VIEW, "cs(Referer)": "-" }).channel, "direct");
});

Deno.test("mapCloudFrontRecord() maps hostile user agents, queries and referrers to bounded rows", () => {
  const hostile = [
    { "cs(User-Agent)": "x".repeat(10_000) },
    { "cs(User-Agent)": "Mozilla/5.0%00%1B[31m%0A(Windows NT 10.0) Chrome/131.0" },
    { "cs(User-Agent)": "%" },
    { "cs-uri-query": `utm_source=${"a".repeat(10_000)}&${"k=v&".repeat(2_000)}` },
    { "cs-uri-query": "utm_source=%E0%A4%A&&&==&utm_medium" },
    { "cs(Referer)": "http://[::1" },
    { "cs(Referer)": "javascript:alert(1)" },
    { "cs(Referer)": `https://a.example/${"p".repeat(10_000)}?${"k=v&".repeat(2_000)}` },
  ];
  for (const fields of hostile) {
    const out = row({ ...PAGE_VIEW, ...fields });
    assert.deepEqual(Object.keys(out), ROW_COLUMNS.map((c) => c.name));
    assert.ok(out.referrer === null || out.referrer.length <= 1_000, "referrer bounded");
    for (const col of ["browser", "os", "utm_source", "utm_medium", "bot_name"] as const) {
      const v = out[col];
      assert.ok(v === null || (v.length <= 100 && !/\p{Cc}/u.test(v)), `${col}: ${v}`);
    }
  }
});

Deno.test("mapCloudFrontRecord() emits exactly the table's columns, and no IP or cookie", () => {
  const out = row(PAGE_VIEW);
  assert.deepEqual(Object.keys(out), ROW_COLUMNS.map((c) => c.name));
  const text = JSON.stringify(out);
  for (const secret of ["203.0.113.9", "198.51.100.7", "do-not-store"]) {
    assert.ok(!text.includes(secret), secret);
  }
  assert.ok(!SELECTED_LOG_FIELDS.includes("cs(Cookie)"));
  assert.ok(!SELECTED_LOG_FIELDS.includes("x-forwarded-for"));
});

Deno.test("mapCloudFrontRecord() takes date and time when timestamp(ms) is absent", () => {
  const { "timestamp(ms)": _, ...rest } = PAGE_VIEW;
  const out = row({ ...rest, date: "2026-11-30", time: "23:59:59" });
  assert.equal(out.event_time, "2026-11-30T23:59:59.000Z");
  assert.equal(out.day, "2026-11-30");
});

Deno.test("mapCloudFrontRecord() reads `-` as absent and numbers written as numbers", () => {
  const out = row({
    ...PAGE_VIEW,
    "cs-uri-query": "-",
    "cs(Referer)": "-",
    "x-host-header": "-",
    "asn": "-",
    "sc-status": 404,
    "sc-bytes": 17,
  });
  assert.equal(out.utm_source, null);
  assert.equal(out.referrer, null);
  assert.equal(out.host, "d111111abcdef8.cloudfront.net");
  assert.equal(out.asn, null);
  assert.equal(out.status, 404);
  assert.equal(out.bytes_sent, 17);
});

Deno.test("mapCloudFrontRecord() keeps the subscriber count a feed reader states", () => {
  const feedly = row({
    ...PAGE_VIEW,
    "cs(User-Agent)": "Feedly/1.0%20(+http://www.feedly.com/fetcher.html;%2016%20subscribers)",
  });
  assert.deepEqual([feedly.is_bot, feedly.feed_subscribers], [true, 16]);
  assert.equal(row(PAGE_VIEW).feed_subscribers, null);
});

Deno.test("mapCloudFrontRecord() flags bots and a missing user agent", () => {
  const google = row({ ...PAGE_VIEW, "cs(User-Agent)": "Googlebot/2.1" });
  assert.deepEqual([google.is_bot, google.bot_category, google.bot_name], [
    true,
    "search",
    "Googlebot",
  ]);
  const none = row({ ...PAGE_VIEW, "cs(User-Agent)": "-" });
  assert.equal(none.is_bot, true);
  assert.deepEqual([none.device, none.bot_category, none.bot_name], [
    "bot",
    "other",
    "(no user agent)",
  ]);
  assert.equal(none.visitor_key, visitorKey(saltFor("2026-11-23"), "203.0.113.9", ""));
});

Deno.test("mapCloudFrontRecord() gives the same visitor one key per day, another the next day", () => {
  const morning = row(PAGE_VIEW);
  const evening = row({ ...PAGE_VIEW, "timestamp(ms)": String(Date.UTC(2026, 10, 23, 23, 59)) });
  const nextDay = row({ ...PAGE_VIEW, "timestamp(ms)": String(Date.UTC(2026, 10, 24, 0, 1)) });
  assert.equal(evening.visitor_key, morning.visitor_key);
  assert.notEqual(nextDay.visitor_key, morning.visitor_key);
  assert.equal(nextDay.day, "2026-11-24");
});

Deno.test("mapCloudFrontRecord() refuses records it cannot map, naming why", () => {
  const cases: [unknown, string][] = [
    ["a string", "the record is not a JSON object"],
    [[PAGE_VIEW], "the record is not a JSON object"],
    [
      { ...PAGE_VIEW, "timestamp(ms)": "soon", date: "-" },
      "no valid timestamp(ms), or date and time",
    ],
    [{ ...PAGE_VIEW, "c-ip": "-" }, "no c-ip"],
    [{ ...PAGE_VIEW, "cs-uri-stem": "" }, "no cs-uri-stem"],
    [{ ...PAGE_VIEW, "cs-method": undefined }, "no cs-method"],
    [{ ...PAGE_VIEW, "sc-status": "OK" }, "no numeric sc-status"],
    [{ ...PAGE_VIEW, "x-edge-request-id": "-" }, "no x-edge-request-id"],
  ];
  for (const [record, reason] of cases) {
    assert.deepEqual(mapCloudFrontRecord(record, saltFor), { reason }, JSON.stringify(record));
  }
});
