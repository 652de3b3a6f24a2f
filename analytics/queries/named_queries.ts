/**
 * The named queries of the dashboard, `analytics export` and `analytics status`: the only SQL
 * that ever runs on the page-view table. Each is bound by a date range of whole UTC days and
 * the bots rule, and every value is a bound parameter (`$from`, `$to`, `$bots`); the one name
 * spliced into the text is the table's, from the validated configuration. A query with a total
 * also runs on the previous range of equal length, so its total comes with its change.
 *
 * Most read one of five shared scans (`shared_scan.ts`): the dashboard, which asks for every
 * panel at once, reads the range once for all the page-view panels, once for visitors and entry
 * pages, once for the panels counting every request, once for downloads and once for feeds,
 * instead of once per query. With a daily roll-up (`rollup.ts`) the scans' closed
 * days are read from it.
 *
 * @module
 */
import type { DuckDBConnection, DuckDBValue } from "@duckdb/node-api";
import type { QueryRange } from "./range.ts";
import { previousRange, timeBucket } from "./range.ts";
import { readBound } from "./duckdb.ts";
import {
  createScanSharing,
  groupedSql,
  memberSql,
  type NamedMember,
  regroupedSql,
  rolledColumns,
  type ScanMember,
  type ScanSharing,
  type SharedScan,
} from "./shared_scan.ts";
import type { RolledScan } from "./rollup.ts";
import { type PageViewSource, quoteIdentifier, type Rollup } from "./source.ts";

/** A cell of a result row, as JSON carries it. */
export type Cell = string | number | boolean | null;

/** What a named query answers; the dashboard's API sends it as JSON. */
export interface QueryResult {
  /** The query's name. */
  readonly query: QueryName;
  /** First day of the range. */
  readonly from: string;
  /** Last day of the range. */
  readonly to: string;
  /** Whether bot rows were counted. */
  readonly bots: "include" | "exclude";
  /** The rows, one object per row, keys as in {@linkcode NamedQuery.columns}. */
  readonly rows: readonly Record<string, Cell>[];
  /** The figure summing the rows, where one makes sense (views, visitors, rows). */
  readonly total?: number;
  /** The bucket of time-series rows (`views`): `hour` or `day`. */
  readonly unit?: "hour" | "day";
  /** With a total: the previous range of equal length (ending the day before `from`), its total. */
  readonly previous?: { readonly from: string; readonly to: string; readonly total: number };
  /**
   * With a total: `(total - previous.total) / previous.total` (0.25 is +25 %); null when the
   * previous range's total is 0, where no ratio exists.
   */
  readonly change?: number | null;
}

/** One named query. */
export interface NamedQuery {
  /** The name in `/api/queries/<name>`. */
  readonly name: QueryName;
  /** A short title for the page. */
  readonly title: string;
  /** What the numbers mean (shown on the page and in docs/analytics.md). */
  readonly description: string;
  /** The columns of its rows, in order. */
  readonly columns: readonly string[];
  /**
   * The column whose sum is the result's `total`, where one makes sense. A ranked list (top
   * 20) sums every group, not only the rows it returns (its SQL carries the sum in a column of
   * its own, `groups_total`, taken off the rows).
   */
  readonly total?: string;
  /**
   * Its SQL (pure): the parameters `$from`, `$to` and `$bots` are bound when it runs.
   * @param relation the table's quoted name
   * @param range the range (only its length is read, to pick hours or days)
   */
  sql(relation: string, range: QueryRange): string;
  /**
   * For a query that reads a shared scan (`shared_scan.ts`): how. Its {@linkcode sql} is then
   * the scan for it alone, finished the same way.
   */
  readonly shared?: ScanMember<ScanName>;
}

/** The query names, in the order the page shows them. */
export const QUERY_NAMES = [
  "views",
  "unique_visitors",
  "top_paths",
  "referrers",
  "countries",
  "status_codes",
  "cache_hit_ratio",
  "row_count",
  "channels",
  "entry_pages",
  "devices",
  "browsers",
  "os",
  "campaigns",
  "not_found",
  "bots",
  "downloads",
  "feed_subscribers",
  "ai_crawler_pages",
  "cdn_cost",
  "cdn_cost_paths",
] as const;

/** A query name. */
export type QueryName = typeof QUERY_NAMES[number];

/** How many rows the top-N queries return. */
export const TOP_LIMIT = 20;

/**
 * Every query's filter: the partition column bounds the range (so an Iceberg scan reads only
 * those days' files) and `$bots` decides whether bot rows count.
 */
const BOUNDED = "day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE) AND ($bots OR NOT is_bot)";

/**
 * A page view: a successful (2xx or 304) GET of an HTML page. CloudFront logs no content type
 * on a 304, so a path that looks like a page (ends in `/`, `.htm(l)` or has no extension)
 * counts then. Assets, errors and non-GET requests are requests but not views. The content
 * type is compared as written (the deploy sync uploads lowercase types, as S3 and CloudFront
 * pass them on): folding case on every row cost about half the query.
 */
export const PAGE_VIEW = "method = 'GET' AND (status BETWEEN 200 AND 299 OR status = 304) AND " +
  // CASE, not OR: the path test runs only on the rows without a content type.
  "CASE WHEN content_type IS NULL THEN regexp_matches(uri, '(/|\\.html?|/[^./]*)$') " +
  "ELSE starts_with(content_type, 'text/html') END";

/**
 * The file extensions a download has (case-insensitive): documents, archives, installers,
 * e-books, audio, video and data files. Pages, images, scripts and styles are not downloads.
 */
export const DOWNLOAD_EXTENSIONS: readonly string[] = [
  "pdf",
  "epub",
  "mobi",
  "azw3",
  "djvu",
  "zip",
  "gz",
  "tgz",
  "bz2",
  "xz",
  "zst",
  "7z",
  "rar",
  "tar",
  "dmg",
  "pkg",
  "exe",
  "msi",
  "msix",
  "deb",
  "rpm",
  "apk",
  "appimage",
  "iso",
  "img",
  "jar",
  "mp3",
  "m4a",
  "aac",
  "ogg",
  "oga",
  "opus",
  "flac",
  "wav",
  "mp4",
  "m4v",
  "mov",
  "webm",
  "mkv",
  "avi",
  "csv",
  "tsv",
  "xlsx",
  "xls",
  "ods",
  "docx",
  "doc",
  "odt",
  "pptx",
  "ppt",
  "odp",
  "rtf",
  "parquet",
  "sqlite",
];

/**
 * A download: a successful GET (200, or 206 for a range of the file) of a path ending in one
 * of {@linkcode DOWNLOAD_EXTENSIONS}.
 */
const DOWNLOAD = "method = 'GET' AND status IN (200, 206) AND " +
  `regexp_matches(uri, '(?i)\\.(${DOWNLOAD_EXTENSIONS.join("|")})$')`;

/**
 * The paths a site's feeds have (RSS, Atom, JSON Feed): `/feed`, `/rss`, `/atom` (with or
 * without a trailing slash), `*.rss`, `*.atom`, `feed.xml`, `rss.xml`, `atom.xml`, `index.xml`,
 * `feed.json`, `*.rss.xml`; or any path served as `application/rss+xml`, `application/atom+xml`
 * or `application/feed+json`.
 */
export const FEED = "method = 'GET' AND (status BETWEEN 200 AND 299 OR status = 304) AND (" +
  "regexp_matches(uri, '(?i)(/(feed|rss|atom)/?|\\.(rss|atom)|/(feed|rss|atom|index)\\.xml|" +
  "/feed\\.json|\\.rss\\.xml)$') OR content_type IN ('application/rss+xml', " +
  "'application/atom+xml', 'application/feed+json') OR starts_with(content_type, " +
  "'application/rss+xml;') OR starts_with(content_type, 'application/atom+xml;'))";

/** CloudFront's result types that were served from the edge cache. */
const CACHE_HITS = "result_type IN ('Hit', 'RefreshHit', 'OriginShieldHit')";

/** The days of the range, one row each, so days without rows still show (as zero). */
const DAYS = "SELECT CAST(d AS DATE) AS day FROM generate_series(CAST($from AS DATE), " +
  "CAST($to AS DATE), INTERVAL 1 DAY) AS g(d)";

/** The hours of the range (UTC), one row each. */
const HOURS =
  "SELECT CAST(h AS TIMESTAMP) AS hour FROM generate_series(CAST($from AS TIMESTAMP), " +
  "CAST($to AS TIMESTAMP) + INTERVAL 23 HOUR, INTERVAL 1 HOUR) AS g(h)";

/** The column a ranked list carries the sum over all its groups in (before the limit). */
const GROUPS_TOTAL = "groups_total";

/**
 * A ranked list (pure): the top {@linkcode TOP_LIMIT} rows of `grouped` by `order`, each
 * carrying the sum of `value` over every group. The window is computed before the limit, in
 * the same pass over the groups, so the total costs no second scan.
 */
function ranked(grouped: string, value: string, order: string): string {
  return `SELECT *, sum(${value}) OVER () AS ${GROUPS_TOTAL} FROM (${grouped}) ORDER BY ${order} ` +
    `LIMIT ${TOP_LIMIT}`;
}

/**
 * Every day of the range, oldest first, with `columns` chosen from `c`: that day's requests,
 * cache hits and bytes from the requests scan's (day, hit) groups, null on a day without
 * requests (pure). The two per-day traffic panels differ only in the columns they show.
 */
function trafficPerDay(grouped: string, columns: string): string {
  return "WITH c AS (SELECT day, CAST(sum(n) AS BIGINT) AS requests, CAST(coalesce(sum(n) " +
    "FILTER (WHERE hit), 0) AS BIGINT) AS hits, CAST(sum(bytes) AS BIGINT) AS bytes FROM " +
    `${grouped} GROUP BY day) SELECT strftime(d.day, '%Y-%m-%d') AS day, ${columns} FROM ` +
    `(${DAYS}) d LEFT JOIN c USING (day) ORDER BY d.day`;
}

/** The scans several queries share (`shared_scan.ts`). */
export type ScanName = "page_views" | "visits" | "requests" | "downloads" | "feeds";

/**
 * A visitor's first page view of a day: the earliest, the path breaking an exact tie in time,
 * so the answer never changes between runs. An ordered `first` gives the same as
 * `arg_min(uri, (event_time, uri))` for a sixth less of the visits scan's CPU time (1.65 s
 * against 1.37 s on 2 million rows): a visit has few rows to order, while the struct key was
 * built and compared on every row.
 */
const ENTRY = "first(uri ORDER BY event_time, uri)";

/** The scans, by name. */
const SCANS: Readonly<Record<ScanName, SharedScan>> = {
  // Every page view of the range, read and filtered once for every page-view panel. The
  // page-view test and the scan were most of each such query's cost.
  page_views: {
    columns: [
      "bucket",
      "uri",
      "referrer",
      "host",
      "country",
      "channel",
      "device",
      "browser",
      "os",
      "utm_source",
      "utm_medium",
      "utm_campaign",
    ],
    rows: (relation, range) =>
      `SELECT ${
        timeBucket(range) === "day" ? "day" : "date_trunc('hour', CAST(event_time AS TIMESTAMP))"
      } AS bucket, uri, referrer, host, country, channel, device, browser, os, utm_source, ` +
      `utm_medium, utm_campaign FROM ${relation} WHERE ${BOUNDED} AND ${PAGE_VIEW}`,
    // A day is rolled up by the hour (one day is an hourly range); a longer range is by day.
    rolled: (column, range) =>
      column === "bucket" && timeBucket(range) === "day" ? "CAST(bucket AS DATE)" : column,
  },
  // One row per visitor key and day (the key changes daily, so this is the day's visit), with
  // its entry page. Unique visitors count every request's key, entries only page views': read
  // together, every row is grouped once and the entry is taken from the page views only.
  // Grouping the pairs is the cost of an exact count (docs/analytics.md), paid once for both.
  visits: {
    columns: ["day", "path"],
    rows: (relation, _range, members) => {
      if (!members.includes("entry_pages")) {
        return `SELECT DISTINCT day, visitor_key FROM ${relation} WHERE ${BOUNDED}`;
      }
      if (!members.includes("unique_visitors")) {
        return `SELECT day, ${ENTRY} AS path FROM ${relation} WHERE ${BOUNDED} AND ` +
          `${PAGE_VIEW} GROUP BY day, visitor_key`;
      }
      return `SELECT day, ${ENTRY} FILTER (WHERE ${PAGE_VIEW}) AS path FROM ${relation} ` +
        `WHERE ${BOUNDED} GROUP BY day, visitor_key`;
    },
  },
  // Every request of the range, for the panels that count requests rather than page views:
  // status codes, cache hits per day, rows, 404s with their Referer, bots. A 404's path and
  // Referer and a bot's names are null on the other rows, so those sets hold few groups.
  requests: {
    columns: [
      "day",
      "status",
      "hit",
      "path",
      "missing_path",
      "missing_referrer",
      "bot_category",
      "bot_name",
      "ai_crawler",
      "ai_path",
    ],
    sums: ["bytes"],
    rows: (relation) =>
      `SELECT day, status, ${CACHE_HITS} AS hit, uri AS path, CASE WHEN status = 404 THEN uri ` +
      "END AS missing_path, CASE WHEN status = 404 THEN referrer END AS missing_referrer, " +
      "CASE WHEN is_bot THEN coalesce(bot_category, 'unknown') END AS bot_category, CASE WHEN " +
      "is_bot THEN coalesce(bot_name, 'unknown') END AS bot_name, CASE WHEN is_bot AND " +
      "bot_category = 'ai' THEN coalesce(bot_name, 'unknown') END AS ai_crawler, CASE WHEN " +
      "is_bot AND bot_category = 'ai' THEN uri END AS ai_path, coalesce(bytes_sent, 0) AS " +
      `bytes FROM ${relation} WHERE ${BOUNDED}`,
  },
  // One row per visitor key, day and downloaded file: a file fetched in ranges (a video, a
  // resumed download) is one download. Its referrer is that of its first request.
  downloads: {
    columns: ["path", "referrer"],
    rows: (relation) =>
      "SELECT uri AS path, first(referrer ORDER BY event_time, referrer NULLS LAST) AS " +
      `referrer FROM ${relation} WHERE ${BOUNDED} AND ${DOWNLOAD} GROUP BY day, visitor_key, uri`,
  },
  // Every feed fetch, by reader and feed: a stated count with its time, or the visitor key of
  // a reader that states none. Grouped once for the one member (a latest count is not a sum,
  // so the member reads the groups, not their counts): a few hundred groups a day.
  feeds: {
    columns: ["day", "reader", "feed", "stated_at", "stated", "visitor"],
    rows: (relation) =>
      "SELECT day, coalesce(bot_name, browser, 'unknown') AS reader, uri AS feed, CASE WHEN " +
      "feed_subscribers IS NOT NULL THEN event_time END AS stated_at, feed_subscribers AS " +
      "stated, CASE WHEN feed_subscribers IS NULL THEN visitor_key END AS visitor FROM " +
      `${relation} WHERE ${BOUNDED} AND ${FEED}`,
  },
};

/** A query that reads a shared scan: its SQL alone is the scan for it only, finished. */
function scanQuery(
  query: Omit<NamedQuery, "sql" | "shared">,
  shared: ScanMember<ScanName>,
): NamedQuery {
  const scan = SCANS[shared.scan];
  const alone: NamedMember<ScanName>[] = [{ name: query.name, member: shared }];
  return {
    ...query,
    shared,
    sql: (relation, range) =>
      memberSql(scan, shared, alone, `(${groupedSql(scan, relation, range, alone)})`, range),
  };
}

/** Page views by one column of the page-view scan, a missing value (older rows) as "unknown". */
function viewsBy(grouped: string, column: string): string {
  return `SELECT coalesce(${column}, 'unknown') AS ${column}, CAST(sum(n) AS BIGINT) AS views ` +
    `FROM ${grouped} GROUP BY 1`;
}

/**
 * One row per day or hour of the range (`column`, as text) with the count `n` of `grouped`
 * keyed by `column` (as `value`); a bucket without rows shows as 0.
 */
function everyBucket(grouped: string, unit: "day" | "hour", column: string, value: string): string {
  const [buckets, format] = unit === "day" ? [DAYS, "%Y-%m-%d"] : [HOURS, "%Y-%m-%dT%H:00Z"];
  return `SELECT strftime(b.${unit}, '${format}') AS ${column}, ` +
    `CAST(coalesce(g.n, 0) AS BIGINT) AS ${value} FROM (${buckets}) b LEFT JOIN ` +
    `(SELECT ${column} AS ${unit}, n FROM ${grouped}) g USING (${unit}) ORDER BY b.${unit}`;
}

/** The queries, by name. */
export const NAMED_QUERIES: Readonly<Record<QueryName, NamedQuery>> = {
  views: scanQuery({
    name: "views",
    title: "Page views",
    description: "Page views (successful GETs of HTML pages) per hour for ranges of up to two " +
      "days, per day otherwise. The total is their sum.",
    columns: ["bucket", "views"],
    total: "views",
  }, {
    scan: "page_views",
    groupBy: ["bucket"],
    // Both sides are naive UTC timestamps for hours: the sources set the session time zone
    // to UTC.
    finish: (grouped, range) => everyBucket(grouped, timeBucket(range), "bucket", "views"),
  }),
  unique_visitors: scanQuery({
    name: "unique_visitors",
    title: "Unique visitors",
    description: "Distinct visitor keys per UTC day. The key changes every day (the salt is " +
      "daily), so the total is the sum of the daily counts: a person who came on three days " +
      "counts three times. It is never a distinct count across days.",
    columns: ["day", "visitors"],
    total: "visitors",
  }, {
    scan: "visits",
    groupBy: ["day"],
    finish: (grouped) => everyBucket(grouped, "day", "day", "visitors"),
  }),
  top_paths: scanQuery({
    name: "top_paths",
    title: "Top pages",
    description: `The ${TOP_LIMIT} paths with the most page views.`,
    columns: ["path", "views"],
  }, {
    scan: "page_views",
    groupBy: ["uri"],
    finish: (grouped) =>
      `SELECT uri AS path, n AS views FROM ${grouped} ORDER BY views DESC, path LIMIT ${TOP_LIMIT}`,
  }),
  referrers: scanQuery({
    name: "referrers",
    title: "Referrers",
    description: `The ${TOP_LIMIT} sites whose links brought the most page views (the host of ` +
      "the Referer header; links within the site itself and views without a referrer are " +
      "left out).",
    columns: ["referrer", "views"],
  }, {
    scan: "page_views",
    // Counted per distinct (Referer, host) pair first, hosts then extracted and compared once
    // per pair rather than once per row: a site has far fewer distinct referrers than views,
    // and the regular expression was most of the query's time. The answer is the same sum.
    groupBy: ["referrer", "host"],
    finish: (grouped) =>
      `SELECT referrer, CAST(sum(n) AS BIGINT) AS views FROM (SELECT lower(regexp_extract(` +
      `referrer, '^[A-Za-z][A-Za-z0-9+.-]*://([^/:?#]+)', 1)) AS referrer, lower(host) AS ` +
      `host, n FROM ${grouped} WHERE referrer IS NOT NULL) WHERE referrer <> '' AND referrer ` +
      `IS DISTINCT FROM host GROUP BY referrer ORDER BY views DESC, referrer LIMIT ${TOP_LIMIT}`,
  }),
  countries: scanQuery({
    name: "countries",
    title: "Countries",
    description: "Page views by the viewer's country as CloudFront located it (ISO code; " +
      '"unknown" when it could not).',
    columns: ["country", "views"],
  }, {
    scan: "page_views",
    groupBy: ["country"],
    finish: (grouped) => `${viewsBy(grouped, "country")} ORDER BY views DESC, country`,
  }),
  status_codes: scanQuery({
    name: "status_codes",
    title: "Status codes",
    description: "Every request (pages, assets, errors) by the HTTP status CloudFront sent.",
    columns: ["status", "requests"],
    total: "requests",
  }, {
    scan: "requests",
    groupBy: ["status"],
    finish: (grouped) =>
      `SELECT status, n AS requests FROM ${grouped} ORDER BY requests DESC, status`,
  }),
  cache_hit_ratio: scanQuery({
    name: "cache_hit_ratio",
    title: "Cache hit ratio",
    description: "Per day, the share of all requests CloudFront answered from its cache " +
      "(Hit, RefreshHit, OriginShieldHit) out of all requests; empty on a day without requests.",
    columns: ["day", "hits", "requests", "ratio"],
  }, {
    scan: "requests",
    groupBy: ["day", "hit"],
    finish: (grouped) =>
      trafficPerDay(
        grouped,
        "CAST(coalesce(c.hits, 0) AS BIGINT) AS hits, CAST(coalesce(c.requests, 0) AS BIGINT) " +
          "AS requests, CASE WHEN c.requests > 0 THEN c.hits / c.requests END AS ratio",
      ),
  }),
  row_count: scanQuery({
    name: "row_count",
    title: "Rows",
    description: "Rows in the table for the range: every logged request, pages and assets.",
    columns: ["rows"],
    total: "rows",
  }, {
    scan: "requests",
    groupBy: ["day"],
    finish: (grouped) => `SELECT CAST(coalesce(sum(n), 0) AS BIGINT) AS rows FROM ${grouped}`,
  }),
  channels: scanQuery({
    name: "channels",
    title: "Channels",
    description: "Page views by where the visitor came from: search, social, ai (an AI " +
      "assistant), email, direct (no referrer) or other, as the transform classified the " +
      'referrer; "unknown" for rows written before it did.',
    columns: ["channel", "views"],
    total: "views",
  }, {
    scan: "page_views",
    groupBy: ["channel"],
    finish: (grouped) => `${viewsBy(grouped, "channel")} ORDER BY views DESC, channel`,
  }),
  entry_pages: scanQuery({
    name: "entry_pages",
    title: "Entry pages",
    description: `The ${TOP_LIMIT} pages visitors landed on most: a visitor's first page view ` +
      "of a UTC day (by time) is an entry. The total counts entries: one per visitor and day " +
      "with a page view.",
    columns: ["path", "entries"],
    total: "entries",
  }, {
    scan: "visits",
    groupBy: ["path"],
    // A visit without a page view (assets only, read with unique_visitors) has no entry.
    finish: (grouped) =>
      ranked(
        `SELECT path, n AS entries FROM ${grouped} WHERE path IS NOT NULL`,
        "entries",
        "entries DESC, path",
      ),
  }),
  devices: scanQuery({
    name: "devices",
    title: "Devices",
    description: "Page views by device class (desktop, mobile, tablet, bot) from the user " +
      'agent; "unknown" for rows written before the transform derived it.',
    columns: ["device", "views"],
    total: "views",
  }, {
    scan: "page_views",
    groupBy: ["device"],
    finish: (grouped) => `${viewsBy(grouped, "device")} ORDER BY views DESC, device`,
  }),
  browsers: scanQuery({
    name: "browsers",
    title: "Browsers",
    description: `The ${TOP_LIMIT} browser families with the most page views; the total ` +
      "counts every page view.",
    columns: ["browser", "views"],
    total: "views",
  }, {
    scan: "page_views",
    groupBy: ["browser"],
    finish: (grouped) => ranked(viewsBy(grouped, "browser"), "views", "views DESC, browser"),
  }),
  os: scanQuery({
    name: "os",
    title: "Operating systems",
    description: `The ${TOP_LIMIT} operating systems with the most page views; the total ` +
      "counts every page view.",
    columns: ["os", "views"],
    total: "views",
  }, {
    scan: "page_views",
    groupBy: ["os"],
    finish: (grouped) => ranked(viewsBy(grouped, "os"), "views", "views DESC, os"),
  }),
  campaigns: scanQuery({
    name: "campaigns",
    title: "Campaigns",
    description: `The ${TOP_LIMIT} campaigns (utm_source, utm_medium, utm_campaign of the ` +
      "link) with the most page views; only views whose link carried at least one of them. " +
      "The total counts those views.",
    columns: ["utm_source", "utm_medium", "utm_campaign", "views"],
    total: "views",
  }, {
    scan: "page_views",
    groupBy: ["utm_source", "utm_medium", "utm_campaign"],
    finish: (grouped) =>
      ranked(
        `SELECT utm_source, utm_medium, utm_campaign, n AS views FROM ${grouped} WHERE ` +
          `utm_source IS NOT NULL OR utm_medium IS NOT NULL OR utm_campaign IS NOT NULL`,
        "views",
        "views DESC, utm_source NULLS LAST, utm_medium NULLS LAST, utm_campaign NULLS LAST",
      ),
  }),
  not_found: scanQuery({
    name: "not_found",
    title: "Not found (404)",
    description: `The ${TOP_LIMIT} most requested missing paths (status 404, pages and ` +
      "assets) with the page that linked to each (the Referer; empty when none was sent). " +
      "The total counts every 404.",
    columns: ["path", "referrer", "requests"],
    total: "requests",
  }, {
    scan: "requests",
    groupBy: ["missing_path", "missing_referrer"],
    finish: (grouped) =>
      ranked(
        `SELECT missing_path AS path, missing_referrer AS referrer, n AS requests FROM ` +
          `${grouped} WHERE missing_path IS NOT NULL`,
        "requests",
        "requests DESC, path, referrer NULLS LAST",
      ),
  }),
  bots: scanQuery({
    name: "bots",
    title: "Bots",
    description: `The ${TOP_LIMIT} bots with the most requests, by category (search, ai, ` +
      "monitor, other) and name. Counted only while bots are included; the total counts " +
      "every bot request.",
    columns: ["category", "name", "requests"],
    total: "requests",
  }, {
    scan: "requests",
    groupBy: ["bot_category", "bot_name"],
    // BOUNDED leaves every bot row out when bots are excluded, so the list is then empty.
    finish: (grouped) =>
      ranked(
        `SELECT bot_category AS category, bot_name AS name, n AS requests FROM ${grouped} ` +
          "WHERE bot_category IS NOT NULL",
        "requests",
        "requests DESC, category, name",
      ),
  }),
  downloads: scanQuery({
    name: "downloads",
    title: "File downloads",
    description: `The ${TOP_LIMIT} (file, referrer) pairs with the most downloads: successful ` +
      "GETs (200, or 206 for a range) of files with a download extension (pdf, zip, dmg, exe, " +
      "epub, mp3, mp4, csv, …; docs/analytics.md lists them). A visitor fetching a file in " +
      "several ranges on one UTC day downloads it once, credited to the referrer of the first " +
      "request. The total counts every download.",
    columns: ["path", "referrer", "downloads"],
    total: "downloads",
  }, {
    scan: "downloads",
    groupBy: ["path", "referrer"],
    finish: (grouped) =>
      ranked(
        `SELECT path, referrer, n AS downloads FROM ${grouped}`,
        "downloads",
        "downloads DESC, path, referrer NULLS LAST",
      ),
  }),
  feed_subscribers: scanQuery({
    name: "feed_subscribers",
    title: "Feed subscribers",
    description: "Subscribers of the site's RSS, Atom and JSON feeds by reader (the bot's or " +
      "browser's name) and feed: where the reader's user agent states a count (Feedly, " +
      "Inoreader, NewsBlur, …) the latest it stated in the range (basis stated); otherwise " +
      "the distinct visitor keys that fetched the feed on the latest day the reader did " +
      "(basis visitors). The total sums the rows. Hosted readers are bots: excluding bots " +
      "leaves them out.",
    columns: ["reader", "feed", "subscribers", "basis"],
    total: "subscribers",
  }, {
    scan: "feeds",
    groupBy: ["day", "reader", "feed", "stated_at", "stated", "visitor"],
    finish: (grouped) =>
      ranked(
        `WITH f AS (SELECT * FROM ${grouped}), stated AS (SELECT reader, feed, ` +
          "arg_max(stated, (stated_at, stated)) AS subscribers FROM f WHERE stated IS NOT NULL " +
          "GROUP BY reader, feed), counted AS (SELECT reader, feed, arg_max(visitors, day) AS " +
          "subscribers FROM (SELECT reader, feed, day, count(DISTINCT visitor) AS visitors " +
          "FROM f WHERE visitor IS NOT NULL GROUP BY ALL) GROUP BY reader, feed) SELECT " +
          "reader, feed, CAST(subscribers AS BIGINT) AS subscribers, 'stated' AS basis FROM " +
          "stated UNION ALL SELECT reader, feed, CAST(subscribers AS BIGINT), 'visitors' FROM " +
          "counted ANTI JOIN stated USING (reader, feed)",
        "subscribers",
        "subscribers DESC, reader, feed",
      ),
  }),
  ai_crawler_pages: scanQuery({
    name: "ai_crawler_pages",
    title: "AI crawler reads",
    description: `The ${TOP_LIMIT} (AI crawler, path) pairs with the most requests: which ` +
      "pages each AI crawler (bot category ai: GPTBot, ClaudeBot, PerplexityBot, …) fetched, " +
      "and how often. Counted only while bots are included; referrals from AI assistants are " +
      "the ai channel. The total counts every AI crawler request.",
    columns: ["crawler", "path", "reads"],
    total: "reads",
  }, {
    scan: "requests",
    groupBy: ["ai_crawler", "ai_path"],
    finish: (grouped) =>
      ranked(
        `SELECT ai_crawler AS crawler, ai_path AS path, n AS reads FROM ${grouped} WHERE ` +
          "ai_crawler IS NOT NULL",
        "reads",
        "reads DESC, crawler, path",
      ),
  }),
  cdn_cost: scanQuery({
    name: "cdn_cost",
    title: "CDN traffic per day",
    description: "Per UTC day, the bytes CloudFront sent (every request), the requests, and " +
      "the share answered from its cache (Hit, RefreshHit, OriginShieldHit); a low ratio " +
      "after a deploy points at its cache headers. The total is the bytes.",
    columns: ["day", "requests", "bytes", "hit_ratio"],
    total: "bytes",
  }, {
    scan: "requests",
    groupBy: ["day", "hit"],
    finish: (grouped) =>
      trafficPerDay(
        grouped,
        "CAST(coalesce(c.requests, 0) AS BIGINT) AS requests, CAST(coalesce(c.bytes, 0) AS " +
          "BIGINT) AS bytes, CASE WHEN c.requests > 0 THEN c.hits / c.requests END AS hit_ratio",
      ),
  }),
  cdn_cost_paths: scanQuery({
    name: "cdn_cost_paths",
    title: "CDN traffic by path",
    description: `The ${TOP_LIMIT} paths CloudFront sent the most bytes for (every request), ` +
      "with their requests and the share answered from its cache. The total is every path's " +
      "bytes.",
    columns: ["path", "requests", "bytes", "hit_ratio"],
    total: "bytes",
  }, {
    scan: "requests",
    groupBy: ["path", "hit"],
    finish: (grouped) =>
      ranked(
        "SELECT path, CAST(sum(n) AS BIGINT) AS requests, CAST(sum(bytes) AS BIGINT) AS bytes, " +
          "coalesce(sum(n) FILTER (WHERE hit), 0) / sum(n) AS hit_ratio FROM " +
          `${grouped} GROUP BY path`,
        "bytes",
        "bytes DESC, path",
      ),
  }),
};

/**
 * Whether a name is a query name (pure).
 *
 * @param name the requested name
 * @returns true when {@linkcode NAMED_QUERIES} has it
 */
export function isQueryName(name: string): name is QueryName {
  return (QUERY_NAMES as readonly string[]).includes(name);
}

/** Options of {@linkcode runNamedQuery}. */
export interface RunOptions {
  /**
   * Whether a query with a total also runs on the previous range for `previous` and `change`
   * (default true; the backfill's and status's row counts need no comparison).
   */
  readonly compare?: boolean;
  /**
   * Share the scans of queries in flight at once (the dashboard's page asks for all its
   * panels together): a query that reads a shared scan then gets its rows from one run of
   * the scan for every member. Without it, a query scans for itself alone.
   */
  readonly scans?: ScanSharing;
}

/**
 * Runs a named query, and for a query with a total the same query on the previous range of
 * equal length (side by side, on pooled connections).
 *
 * @param source the table
 * @param name the query
 * @param range the bound range and bots rule
 * @param options whether to compare with the previous range
 * @returns its result
 */
export async function runNamedQuery(
  source: PageViewSource,
  name: QueryName,
  range: QueryRange,
  options: RunOptions = {},
): Promise<QueryResult> {
  const query = NAMED_QUERIES[name];
  const before = query.total && (options.compare ?? true) ? previousRange(range) : undefined;
  const [current, previous] = await Promise.all([
    select(source, range, query, options.scans),
    before ? select(source, before, query, options.scans) : undefined,
  ]);
  const total = current.total;
  return {
    query: name,
    from: range.from,
    to: range.to,
    bots: range.includeBots ? "include" : "exclude",
    rows: current.rows,
    ...(total !== undefined ? { total } : {}),
    ...(name === "views" ? { unit: timeBucket(range) } : {}),
    ...(before && previous?.total !== undefined && total !== undefined
      ? {
        previous: { from: before.from, to: before.to, total: previous.total },
        change: previous.total === 0 ? null : (total - previous.total) / previous.total,
      }
      : {}),
  };
}

/** Runs a query for a range: its rows (without `groups_total`) and its total. */
async function select(
  source: PageViewSource,
  range: QueryRange,
  query: NamedQuery,
  scans: ScanSharing | undefined,
): Promise<{ rows: Record<string, Cell>[]; total?: number }> {
  // With a roll-up every scan reads it: alone, a query reads the scan's rows for every member
  // (rolled up for all of them), finished for itself.
  const sharing = scans ?? (source.rollup ? createScanSharing() : undefined);
  const found = query.shared && sharing
    ? (await runScan(source, query.shared.scan, range, sharing)).get(query.name)!
    : await source.use((c) => read(c, query.sql(source.relation, range), range));
  let groupsTotal: number | undefined;
  const rows = found.map((row) => {
    const out: Record<string, Cell> = {};
    for (const [k, v] of Object.entries(row)) {
      if (k === GROUPS_TOTAL) groupsTotal = Number(v);
      else out[k] = cell(v);
    }
    return out;
  });
  if (!query.total) return { rows };
  return { rows, total: groupsTotal ?? sum(rows, query.total) };
}

/** Runs SQL with the range's parameters that it names (DuckDB refuses one it does not use). */
function read(
  c: DuckDBConnection,
  sql: string,
  range: QueryRange,
  more: Record<string, DuckDBValue> = {},
): Promise<RawRow[]> {
  return readBound(c, sql, { from: range.from, to: range.to, bots: range.includeBots, ...more });
}

type RawRow = Record<string, unknown>;

/**
 * Every member's rows of a shared scan for a range, from one run of it shared by the queries
 * asking meanwhile: the grouped rows into a temporary table of one connection, then each
 * member's SQL over it.
 */
function runScan(
  source: PageViewSource,
  name: ScanName,
  range: QueryRange,
  scans: ScanSharing,
): Promise<Map<QueryName, RawRow[]>> {
  const key = `${name} ${range.from} ${range.to} ${range.includeBots}`;
  return scans.share(source, key, async () => {
    const scan = SCANS[name];
    const members = scanMembers(name);
    const raw = { sql: groupedSql(scan, source.relation, range, members), closed: undefined };
    if (!source.rollup) return await readScan(source, name, members, range, raw);
    try {
      // Before taking a connection: the roll-up's refresh takes one of its own.
      const rolled = await rolledUpSql(source, source.rollup, name, range, members);
      return await readScan(source, name, members, range, rolled ?? raw);
    } catch (err) {
      // The roll-up only saves time: when it fails (a broken or locked file), the table gives
      // the same answer, slower, and the page is not an error.
      source.rollupFailed?.(err);
      return await readScan(source, name, members, range, raw);
    }
  });
}

/** Runs a scan's grouped SQL once into a temporary table and reads every member from it. */
function readScan(
  source: PageViewSource,
  name: ScanName,
  members: NamedMember<ScanName, QueryName>[],
  range: QueryRange,
  grouped: { sql: string; closed: string | undefined },
): Promise<Map<QueryName, RawRow[]>> {
  const scan = SCANS[name];
  return source.use(async (c) => {
    // Temporary tables belong to their connection, which runs one statement at a time.
    const table = quoteIdentifier(`grouped_${name}`);
    await read(
      c,
      `CREATE OR REPLACE TEMP TABLE ${table} AS ${grouped.sql}`,
      range,
      grouped.closed ? { closed: grouped.closed } : {},
    );
    try {
      const out = new Map<QueryName, RawRow[]>();
      for (const { name, member } of members) {
        out.set(name, await read(c, memberSql(scan, member, members, table, range), range));
      }
      return out;
    } finally {
      await c.run(`DROP TABLE IF EXISTS ${table}`);
    }
  });
}

/** Every query reading a scan, in page order. */
function scanMembers(name: ScanName): NamedMember<ScanName, QueryName>[] {
  return QUERY_NAMES.flatMap((n) => {
    const member = NAMED_QUERIES[n].shared;
    return member?.scan === name ? [{ name: n, member }] : [];
  });
}

/**
 * The grouped rows of a scan for a range with a roll-up: its closed days from the roll-up
 * (refreshed first, so a changed day is rolled up again before it is read), its open days
 * from the table (after `$closed`, the last closed day), added up group by group; `undefined`
 * when the range has no closed day (the table's grouped rows are the answer).
 */
async function rolledUpSql(
  source: PageViewSource,
  rollup: Rollup,
  name: ScanName,
  range: QueryRange,
  members: readonly NamedMember<ScanName>[],
): Promise<{ sql: string; closed: string } | undefined> {
  const scan = SCANS[name];
  const lastClosed = rollup.lastClosedDay();
  if (range.from > lastClosed) return undefined;
  await rollup.refresh(range);
  const closed = range.to < lastClosed ? range.to : lastClosed;
  const parts = [
    `SELECT ${rolledColumns(scan, members, range)} FROM ${rollup.table(name)} WHERE ` +
    "rolled_day BETWEEN CAST($from AS DATE) AND CAST($closed AS DATE) AND bots = $bots",
  ];
  if (range.to > lastClosed) {
    const open = `(SELECT * FROM ${source.relation} WHERE day > CAST($closed AS DATE))`;
    parts.push(groupedSql(scan, open, range, members));
  }
  return { sql: regroupedSql(scan, members, parts), closed };
}

/**
 * The scans to roll up, each with every query reading it (`rollup.ts`): what the dashboard
 * attaches a roll-up with.
 *
 * @returns the scans
 */
export function rolledScans(): RolledScan[] {
  return (Object.keys(SCANS) as ScanName[]).map((name) => ({
    name,
    scan: SCANS[name],
    members: scanMembers(name),
  }));
}

function cell(value: unknown): Cell {
  if (typeof value === "bigint") return Number(value);
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    return value;
  }
  return String(value);
}

function sum(rows: readonly Record<string, Cell>[], key: string): number {
  return rows.reduce((n, r) => n + (typeof r[key] === "number" ? r[key] : 0), 0);
}
