/**
 * Mapping one CloudFront access-log record (standard logging v2, JSON output, as the site's
 * log delivery source emits it) to one {@linkcode PageViewRow}. Pure: the day's salt comes in
 * as a function, so the mapping is tested without a secret store.
 *
 * CloudFront writes `-` for an empty field and may write numbers as strings; both are read
 * here. `cs(Cookie)` and `x-forwarded-for` are never read (the delivery does not select them
 * either), and `c-ip` only enters the visitor key. The user agent enters the visitor key and
 * is parsed into browser, OS, device and bot columns; the query string gives only its campaign
 * keys; neither is stored.
 *
 * @module
 */
import { statedSubscribers } from "./feed_reader.ts";
import { identifyBot } from "./bots.ts";
import { campaignFields } from "./campaign.ts";
import { referrerChannel } from "./channel.ts";
import { storedReferrer } from "./referrer.ts";
import type { PageViewRow } from "./row.ts";
import { parseUserAgent } from "./user_agent.ts";
import { visitorKey } from "./visitor_key.ts";

/**
 * The CloudFront log fields the analytics delivery selects: every field a row needs, and no
 * cookie or forwarded-for header.
 */
export const SELECTED_LOG_FIELDS: readonly string[] = [
  "timestamp(ms)",
  "date",
  "time",
  "c-ip",
  "x-host-header",
  "cs(Host)",
  "cs-uri-stem",
  "cs-uri-query",
  "cs-method",
  "sc-status",
  "cs(Referer)",
  "cs(User-Agent)",
  "c-country",
  "asn",
  "x-edge-location",
  "x-edge-result-type",
  "sc-bytes",
  "time-taken",
  "sc-content-type",
  "cs-protocol",
  "x-edge-request-id",
];

/** Why a record could not become a row (reported as `ProcessingFailed`). */
export interface MappingFailure {
  /** One line naming the field and the problem. */
  readonly reason: string;
}

/**
 * Maps one record (pure).
 *
 * @param record the parsed JSON log record
 * @param saltFor the salt of a UTC day (`YYYY-MM-DD`)
 * @returns the row, or why the record cannot be mapped
 *
 * @example
 * ```ts
 * import type { PageViewRow } from "./row.ts";
 * import { dailySalt } from "./visitor_key.ts";
 *
 * function mapLines(lines: readonly string[], secret: Uint8Array): PageViewRow[] {
 *   const rows: PageViewRow[] = [];
 *   for (const line of lines) {
 *     const out = mapCloudFrontRecord(JSON.parse(line), (day) => dailySalt(secret, day));
 *     if ("row" in out) rows.push(out.row);
 *   }
 *   return rows;
 * }
 * ```
 */
export function mapCloudFrontRecord(
  record: unknown,
  saltFor: (day: string) => Uint8Array,
): { row: PageViewRow } | MappingFailure {
  if (typeof record !== "object" || record === null || Array.isArray(record)) {
    return { reason: "the record is not a JSON object" };
  }
  const r = record as Record<string, unknown>;
  const time = eventTime(r);
  if (time === undefined) return { reason: "no valid timestamp(ms), or date and time" };
  const ip = text(r["c-ip"]);
  if (ip === null) return { reason: "no c-ip" };
  const uri = text(r["cs-uri-stem"]);
  if (uri === null) return { reason: "no cs-uri-stem" };
  const method = text(r["cs-method"]);
  if (method === null) return { reason: "no cs-method" };
  const status = integer(r["sc-status"]);
  if (status === null) return { reason: "no numeric sc-status" };
  const requestId = text(r["x-edge-request-id"]);
  if (requestId === null) return { reason: "no x-edge-request-id" };
  const userAgent = decoded(text(r["cs(User-Agent)"]));
  const day = time.toISOString().slice(0, 10);
  const host = text(r["x-host-header"]) ?? text(r["cs(Host)"]);
  const referrer = decoded(text(r["cs(Referer)"]));
  const bot = identifyBot(userAgent);
  const campaign = campaignFields(text(r["cs-uri-query"]));
  return {
    row: {
      event_time: time.toISOString(),
      day,
      host,
      uri,
      query: null,
      method,
      status,
      referrer: storedReferrer(referrer),
      user_agent: null,
      country: text(r["c-country"]),
      asn: integer(r["asn"]),
      edge_location: text(r["x-edge-location"]),
      result_type: text(r["x-edge-result-type"]),
      bytes_sent: integer(r["sc-bytes"]),
      time_taken: decimal(r["time-taken"]),
      content_type: text(r["sc-content-type"]),
      protocol: text(r["cs-protocol"]),
      request_id: requestId,
      visitor_key: visitorKey(saltFor(day), ip, userAgent ?? ""),
      is_bot: bot !== null,
      ...parseUserAgent(userAgent, bot !== null),
      ...campaign,
      channel: referrerChannel(referrer, host, campaign.utm_medium),
      bot_category: bot?.category ?? null,
      bot_name: bot?.name ?? null,
      feed_subscribers: statedSubscribers(userAgent),
    },
  };
}

/** `timestamp(ms)` when present, else `date` + `time` (both UTC). */
function eventTime(r: Record<string, unknown>): Date | undefined {
  const ms = decimal(r["timestamp(ms)"]);
  if (ms !== null) {
    const t = new Date(ms);
    return Number.isNaN(t.getTime()) ? undefined : t;
  }
  const date = text(r["date"]);
  const time = text(r["time"]);
  if (date === null || time === null) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !/^\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(time)) {
    return undefined;
  }
  const t = new Date(`${date}T${time}Z`);
  return Number.isNaN(t.getTime()) ? undefined : t;
}

/** A field's text; null for absent, empty or CloudFront's `-`. */
function text(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string") return null;
  return value === "" || value === "-" ? null : value;
}

function decimal(value: unknown): number | null {
  const t = text(value);
  if (t === null || !/^-?\d+(\.\d+)?$/.test(t)) return null;
  return Number(t);
}

function integer(value: unknown): number | null {
  const n = decimal(value);
  return n !== null && Number.isSafeInteger(n) ? n : null;
}

/**
 * CloudFront URL-encodes spaces and some characters in headers it logs (`%20`, `%2520` for a
 * literal `%20`); decode once, keeping the raw text when it is not valid encoding.
 */
function decoded(value: string | null): string | null {
  if (value === null || !value.includes("%")) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
