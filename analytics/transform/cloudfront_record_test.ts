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
    query: "utm_source=feed",
    method: "GET",
    status: 200,
    referrer: "https://news.example.org/",
    user_agent: UA,
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
    browser: null,
    browser_version: null,
    os: null,
    device: null,
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
    channel: null,
    bot_category: null,
    bot_name: null,
  });
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
  assert.equal(out.query, null);
  assert.equal(out.referrer, null);
  assert.equal(out.host, "d111111abcdef8.cloudfront.net");
  assert.equal(out.asn, null);
  assert.equal(out.status, 404);
  assert.equal(out.bytes_sent, 17);
});

Deno.test("mapCloudFrontRecord() flags bots and a missing user agent", () => {
  assert.equal(row({ ...PAGE_VIEW, "cs(User-Agent)": "Googlebot/2.1" }).is_bot, true);
  const none = row({ ...PAGE_VIEW, "cs(User-Agent)": "-" });
  assert.equal(none.is_bot, true);
  assert.equal(none.user_agent, null);
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
