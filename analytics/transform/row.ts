/**
 * One row of the page-view table: the columns, their Iceberg types, and the TypeScript shape
 * the transform produces. The table node creates the table from {@linkcode ROW_COLUMNS}, so the
 * schema and the transform cannot drift apart.
 *
 * @module
 */

/** An Iceberg primitive type the table uses. */
export type IcebergType = "timestamptz" | "date" | "string" | "int" | "long" | "double" | "boolean";

/** One column of the table. */
export interface RowColumn {
  /** The column name (also the JSON key Firehose maps to it). */
  readonly name: keyof PageViewRow;
  /** Its Iceberg type. */
  readonly type: IcebergType;
  /** Whether every row has a value. */
  readonly required: boolean;
  /** What it holds (for docs and the schema). */
  readonly doc: string;
}

/**
 * A page-view row as the transform emits it. Timestamps and dates are ISO-8601 strings, the
 * form Firehose converts into Iceberg `timestamptz` and `date`. There is no IP column: the
 * client address only ever enters the `visitor_key` digest. `query` and `user_agent` are no
 * longer filled (always null; the columns stay so older rows still read): the user agent only
 * enters the visitor key and the parsed columns, the query string only its campaign keys.
 */
export interface PageViewRow {
  event_time: string;
  day: string;
  host: string | null;
  uri: string;
  query: string | null;
  method: string;
  status: number;
  referrer: string | null;
  user_agent: string | null;
  country: string | null;
  asn: number | null;
  edge_location: string | null;
  result_type: string | null;
  bytes_sent: number | null;
  time_taken: number | null;
  content_type: string | null;
  protocol: string | null;
  request_id: string;
  visitor_key: string;
  is_bot: boolean;
  browser: string | null;
  browser_version: number | null;
  os: string | null;
  /** `desktop`, `mobile`, `tablet` or `bot` (`DeviceClass` in user_agent.ts). */
  device: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  /** `search`, `social`, `ai`, `email`, `direct` or `other` (`Channel` in channel.ts). */
  channel: string | null;
  /** `search`, `ai`, `monitor` or `other` (`BotCategory` in bots.ts). */
  bot_category: string | null;
  bot_name: string | null;
  /** The subscriber count a feed reader's user agent states (`feed_reader.ts`). */
  feed_subscribers: number | null;
}

/** The table's columns, in order. */
export const ROW_COLUMNS: readonly RowColumn[] = [
  { name: "event_time", type: "timestamptz", required: true, doc: "when the edge answered (UTC)" },
  { name: "day", type: "date", required: true, doc: "UTC day of event_time; the partition" },
  { name: "host", type: "string", required: false, doc: "the host the viewer asked for" },
  { name: "uri", type: "string", required: true, doc: "the path, without the query" },
  {
    name: "query",
    type: "string",
    required: false,
    doc: "no longer filled (null); older rows: the query string",
  },
  { name: "method", type: "string", required: true, doc: "the HTTP method" },
  { name: "status", type: "int", required: true, doc: "the HTTP status sent" },
  { name: "referrer", type: "string", required: false, doc: "the Referer header" },
  {
    name: "user_agent",
    type: "string",
    required: false,
    doc: "no longer filled (null); older rows: the User-Agent header",
  },
  { name: "country", type: "string", required: false, doc: "ISO country of the viewer" },
  { name: "asn", type: "long", required: false, doc: "autonomous system of the viewer" },
  { name: "edge_location", type: "string", required: false, doc: "the edge that served it" },
  { name: "result_type", type: "string", required: false, doc: "Hit, Miss, Error, …" },
  { name: "bytes_sent", type: "long", required: false, doc: "bytes sent to the viewer" },
  { name: "time_taken", type: "double", required: false, doc: "seconds the edge took" },
  { name: "content_type", type: "string", required: false, doc: "the response Content-Type" },
  { name: "protocol", type: "string", required: false, doc: "http, https, ws or wss" },
  { name: "request_id", type: "string", required: true, doc: "CloudFront's request id" },
  {
    name: "visitor_key",
    type: "string",
    required: true,
    doc: "SHA-256 of IP, user agent and the day's salt",
  },
  { name: "is_bot", type: "boolean", required: true, doc: "user agent matches a bot pattern" },
  // Added by schema evolution (`analytics bootstrap` adds them to an older table, where the
  // rows written before read as null): new columns only ever go at the end.
  { name: "browser", type: "string", required: false, doc: "browser family (ua-parser-js)" },
  { name: "browser_version", type: "int", required: false, doc: "browser major version" },
  { name: "os", type: "string", required: false, doc: "operating system family" },
  { name: "device", type: "string", required: false, doc: "desktop, mobile, tablet or bot" },
  { name: "utm_source", type: "string", required: false, doc: "utm_source, lowercased" },
  { name: "utm_medium", type: "string", required: false, doc: "utm_medium, lowercased" },
  { name: "utm_campaign", type: "string", required: false, doc: "utm_campaign, lowercased" },
  {
    name: "channel",
    type: "string",
    required: false,
    doc: "search, social, ai, email, direct or other",
  },
  { name: "bot_category", type: "string", required: false, doc: "search, ai, monitor or other" },
  { name: "bot_name", type: "string", required: false, doc: "the bot's name" },
  {
    name: "feed_subscribers",
    type: "int",
    required: false,
    doc: "subscribers a feed reader's user agent states",
  },
];

/** The column the table is partitioned by (identity: one partition per UTC day). */
export const PARTITION_COLUMN = "day";
