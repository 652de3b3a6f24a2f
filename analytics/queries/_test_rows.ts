/**
 * Generated rows with known answers for the query, API and page tests: four UTC days across a
 * month boundary, humans and bots, pages, an asset, an error, a 304 and a POST.
 *
 * @module
 */
import type { PageViewRow } from "../transform/row.ts";

/**
 * One row with sensible defaults (a human's successful GET of `/` from Germany, a cache hit).
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
    visitor_key: "v3",
    country: "US",
    result_type: "Miss",
    user_agent: "Googlebot/2.1",
    is_bot: true,
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
    visitor_key: "v5",
    country: "US",
    user_agent: "bingbot/2.0",
    is_bot: true,
  }),
  testRow("2026-02-01T11:00:00.000Z", {
    uri: "/api",
    method: "POST",
    visitor_key: "v4",
    result_type: "Miss",
  }),
];
