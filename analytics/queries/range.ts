/**
 * The parameters every named query is bound by: a date range of whole UTC days and the bots
 * rule. Parsing them is pure, so the dashboard's 400 answers are decided (and tested) here.
 *
 * @module
 */

/** The bound parameters of one query. */
export interface QueryRange {
  /** First UTC day, `YYYY-MM-DD` (inclusive). */
  readonly from: string;
  /** Last UTC day, `YYYY-MM-DD` (inclusive). */
  readonly to: string;
  /** Whether rows with `is_bot` count. */
  readonly includeBots: boolean;
}

/** The values of the `bots` request parameter. */
export const BOTS_VALUES: readonly string[] = ["include", "exclude"];

/** The request parameters a query accepts; any other is refused. */
export const QUERY_PARAMS: readonly string[] = ["from", "to", "bots"];

/**
 * The longest range a request may ask for. Bounds the work one request can cause; ten years
 * is far beyond any retention the pipeline keeps by default.
 */
export const MAX_RANGE_DAYS = 3660;

/** Ranges up to this many days are charted per hour; longer ones per day. */
export const HOURLY_MAX_DAYS = 2;

const DAY_MS = 86_400_000;

/**
 * Whether the `analytics.bots` setting includes bots by default (pure): `flag` includes them,
 * `filter` excludes them.
 *
 * @param bots the resolved setting
 * @returns true for `flag`
 */
export function botsIncludedByDefault(bots: "flag" | "filter"): boolean {
  return bots === "flag";
}

/**
 * Parses a query's parameters (pure). `from` and `to` are required UTC days; `bots`
 * (`include`/`exclude`) overrides the configured default.
 *
 * @param params the request's search parameters
 * @param defaultIncludeBots the default from `analytics.bots`
 * @returns the range, or every problem (one line each)
 *
 * @example
 * ```ts
 * parseQueryRange(new URLSearchParams("from=2026-11-01&to=2026-11-07"), false);
 * // { range: { from: "2026-11-01", to: "2026-11-07", includeBots: false } }
 * ```
 */
export function parseQueryRange(
  params: URLSearchParams,
  defaultIncludeBots: boolean,
): { range: QueryRange } | { errors: string[] } {
  const errors: string[] = [];
  for (const key of new Set(params.keys())) {
    if (!QUERY_PARAMS.includes(key)) {
      errors.push(`unknown parameter "${key}" (accepted: ${QUERY_PARAMS.join(", ")})`);
    } else if (params.getAll(key).length > 1) errors.push(`parameter "${key}" given twice`);
  }
  const from = day(params.get("from"), "from", errors);
  const to = day(params.get("to"), "to", errors);
  const bots = params.get("bots");
  if (bots !== null && !BOTS_VALUES.includes(bots)) {
    errors.push(`bots must be ${BOTS_VALUES.join(" or ")}`);
  }
  if (from !== undefined && to !== undefined) {
    if (from > to) errors.push(`the range is inverted: from ${from} is after to ${to}`);
    else if (rangeDays({ from, to }) > MAX_RANGE_DAYS) {
      errors.push(`the range spans more than ${MAX_RANGE_DAYS} days`);
    }
  }
  if (errors.length > 0 || from === undefined || to === undefined) return { errors };
  return {
    range: { from, to, includeBots: bots === null ? defaultIncludeBots : bots === "include" },
  };
}

/**
 * The number of days a range covers, both ends included (pure).
 *
 * @param range the range
 * @returns days
 */
export function rangeDays(range: Pick<QueryRange, "from" | "to">): number {
  return Math.round((Date.parse(range.to) - Date.parse(range.from)) / DAY_MS) + 1;
}

/**
 * The bucket views over time uses (pure): per hour for ranges of up to two days, else per day.
 *
 * @param range the range
 * @returns `hour` or `day`
 */
export function timeBucket(range: Pick<QueryRange, "from" | "to">): "hour" | "day" {
  return rangeDays(range) <= HOURLY_MAX_DAYS ? "hour" : "day";
}

/**
 * The range a range is compared with (pure): as many days, ending the day before it starts.
 * Computed on UTC days, so it crosses month and year ends and leap days like any other day
 * (7 days from 2026-03-01 compare with 2026-02-22 to 2026-02-28).
 *
 * @param range the range shown
 * @returns the previous range, same bots rule
 */
export function previousRange(range: QueryRange): QueryRange {
  const days = rangeDays(range);
  const start = Date.parse(`${range.from}T00:00:00Z`);
  return { ...range, from: utcDay(start, -days), to: utcDay(start, -1) };
}

/**
 * The UTC day `offset` days from a time (pure).
 *
 * @param ms a time, ms since the epoch
 * @param offset days to add (negative for earlier)
 * @returns `YYYY-MM-DD`
 */
export function utcDay(ms: number, offset = 0): string {
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS + offset * DAY_MS).toISOString().slice(0, 10);
}

function day(value: string | null, key: string, errors: string[]): string | undefined {
  if (value === null) {
    errors.push(`${key} is required (YYYY-MM-DD)`);
    return undefined;
  }
  // Round-tripping through Date refuses 2026-02-30 as well as malformed text.
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) {
    errors.push(`${key} must be a UTC day YYYY-MM-DD, got "${value}"`);
    return undefined;
  }
  return value;
}
