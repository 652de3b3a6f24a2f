/**
 * Generated rows with known answers for the query, API and page tests: four UTC days across a
 * month boundary, humans and bots, pages, an asset, an error, a 304 and a POST.
 *
 * @module
 */
import type { PageViewRow } from "../transform/row.ts";

/**
 * One row with sensible defaults (a human's successful GET of `/` from Germany, a cache hit).
 * The columns schema evolution added (`browser` … `feed_subscribers`) default to null, as in a row
 * written before them; pass them in `fields` to test what uses them.
 *
 * @param time the event time, ISO 8601 UTC
 * @param fields the fields that differ
 * @returns the row
 */
export function testRow(time: string, fields: Partial<PageViewRow> = {}): PageViewRow {
  return {
    event_time: time,
    day: time.slice(0, 10),
    host: "example.com",
    uri: "/",
    query: null,
    method: "GET",
    status: 200,
    referrer: null,
    user_agent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0",
    country: "DE",
    asn: 3320,
    edge_location: "FRA56-P1",
    result_type: "Hit",
    bytes_sent: 1234,
    time_taken: 0.01,
    content_type: "text/html; charset=utf-8",
    protocol: "https",
    request_id: crypto.randomUUID(),
    visitor_key: "v1",
    is_bot: false,
    browser: "Firefox",
    browser_version: 140,
    os: "Linux",
    device: "desktop",
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
    channel: "direct",
    bot_category: null,
    bot_name: null,
    feed_subscribers: null,
    ...fields,
  };
}

/**
 * The known rows. Without bots: 5 views (3 on 2026-01-31, 2 on 2026-02-01), 2 + 2 visitors,
 * 8 rows; with bots: 7 views, 3 + 3 visitors, 10 rows.
 */
export const KNOWN_ROWS: readonly PageViewRow[] = [
  testRow("2026-01-31T10:15:00.000Z", { referrer: "https://news.ycombinator.com/item?id=1" }),
  testRow("2026-01-31T10:45:00.000Z", {
    uri: "/about",
    result_type: "Miss",
    referrer: "https://example.com/",
  }),
  testRow("2026-01-31T11:05:00.000Z", { visitor_key: "v2", country: "FR" }),
  testRow("2026-01-31T12:00:00.000Z", {
    uri: "/style.css",
    visitor_key: "v2",
    country: "FR",
    content_type: "text/css",
  }),
  testRow("2026-01-31T13:00:00.000Z", {
    ...bot("search", "Googlebot"),
    visitor_key: "v3",
    country: "US",
    result_type: "Miss",
    user_agent: "Googlebot/2.1",
  }),
  testRow("2026-02-01T09:00:00.000Z", { referrer: "https://www.google.com/" }),
  testRow("2026-02-01T09:30:00.000Z", {
    uri: "/missing",
    status: 404,
    visitor_key: "v4",
    country: null,
    result_type: "Error",
  }),
  testRow("2026-02-01T10:00:00.000Z", {
    uri: "/blog/",
    status: 304,
    content_type: null,
    visitor_key: "v4",
    country: null,
    result_type: "RefreshHit",
  }),
  testRow("2026-02-01T23:59:59.000Z", {
    ...bot("search", "bingbot"),
    visitor_key: "v5",
    country: "US",
    user_agent: "bingbot/2.0",
  }),
  testRow("2026-02-01T11:00:00.000Z", {
    uri: "/api",
    method: "POST",
    visitor_key: "v4",
    result_type: "Miss",
  }),
];

/** A bot's fields: device `bot`, no browser, its category and name. */
function bot(category: string | null, name: string | null): Partial<PageViewRow> {
  return {
    is_bot: true,
    device: "bot",
    browser: null,
    browser_version: null,
    os: null,
    channel: null,
    bot_category: category,
    bot_name: name,
    visitor_key: `bot-${name}`,
  };
}

/**
 * Rows for the panels and their comparisons: the week 2026-03-01 to 2026-03-07 and the week
 * before it, 2026-02-22 to 2026-02-28 (across the month boundary), with one row just outside
 * each end. Without bots the week has 7 page views, 5 entries, 4 campaign views and 3 404s
 * (the week before: 2, 2, 0 and 1); with bots it has 4 bot requests (the week before: 1).
 */
export const PANEL_ROWS: readonly PageViewRow[] = [
  // Outside both weeks.
  testRow("2026-02-21T12:00:00.000Z", { visitor_key: "v7" }),
  testRow("2026-03-08T00:00:00.000Z", { visitor_key: "v7" }),
  // The week before.
  testRow("2026-02-22T00:00:00.000Z", {
    uri: "/blog/",
    visitor_key: "v8",
    device: "mobile",
    channel: "social",
  }),
  testRow("2026-02-25T06:00:00.000Z", bot("search", "Googlebot")),
  testRow("2026-02-28T23:59:00.000Z", { visitor_key: "v9" }),
  testRow("2026-02-28T23:59:30.000Z", {
    uri: "/gone",
    status: 404,
    visitor_key: "v9",
    result_type: "Error",
  }),
  // The week: v1 fetches a script before its first page of 1 March (not an entry).
  testRow("2026-03-01T07:59:00.000Z", { uri: "/app.js", content_type: "text/javascript" }),
  testRow("2026-03-01T08:00:00.000Z", {
    channel: "search",
    referrer: "https://www.google.com/",
    utm_source: "google",
  }),
  testRow("2026-03-01T08:05:00.000Z", { uri: "/about", referrer: "https://example.com/" }),
  testRow("2026-03-01T07:00:00.000Z", {
    uri: "/blog/",
    visitor_key: "v2",
    browser: "Safari",
    browser_version: 18,
    os: "iOS",
    device: "mobile",
    channel: "social",
    utm_source: "mastodon",
    utm_medium: "social",
    utm_campaign: "launch",
  }),
  testRow("2026-03-02T09:00:00.000Z", {
    uri: "/about",
    browser: "Chrome",
    browser_version: 131,
    os: "Windows",
    channel: "ai",
    referrer: "https://chatgpt.com/",
  }),
  // v3 asks for two pages in the same instant: the entry is the first path, "/".
  ...["/blog/", "/"].map((uri) =>
    testRow("2026-03-02T09:00:00.000Z", {
      uri,
      visitor_key: "v3",
      browser: "Safari",
      browser_version: 18,
      os: "iPadOS",
      device: "tablet",
      channel: "email",
      utm_source: "newsletter",
      utm_medium: "email",
      utm_campaign: "march",
    })
  ),
  ...["10:00", "10:01"].map((t) =>
    testRow(`2026-03-03T${t}:00.000Z`, {
      uri: "/missing",
      status: 404,
      visitor_key: "v4",
      referrer: "https://example.com/about",
      result_type: "Error",
    })
  ),
  testRow("2026-03-03T10:02:00.000Z", {
    uri: "/old.css",
    status: 404,
    visitor_key: "v4",
    content_type: "text/css",
    result_type: "Error",
  }),
  testRow("2026-03-04T00:00:00.000Z", bot("search", "Googlebot")),
  testRow("2026-03-04T01:00:00.000Z", bot("ai", "GPTBot")),
  testRow("2026-03-04T02:00:00.000Z", { ...bot("ai", "GPTBot"), uri: "/about" }),
  // A bot row and a human row written before the transform derived the new columns.
  testRow("2026-03-04T03:00:00.000Z", {
    ...bot(null, null),
    device: null,
    uri: "/robots.txt",
    content_type: "text/plain",
  }),
  ...["/", "/style.css"].map((uri) =>
    testRow("2026-03-05T12:00:00.000Z", {
      uri,
      visitor_key: "v5",
      content_type: uri === "/" ? "text/html" : "text/css",
      browser: null,
      browser_version: null,
      os: null,
      device: null,
      channel: null,
    })
  ),
];
