/**
 * The backfill loop: for each day, skip it when the table already has rows for it; otherwise
 * read its CloudFront log events, map each through the pipeline's own transform with that
 * day's salt, and insert the day's rows in one statement. A day lands whole or not at all, so
 * re-running after an interruption resumes at the first day without rows, and a second run
 * inserts nothing.
 *
 * @module
 */
import { insertRows } from "../queries/insert_rows.ts";
import { runNamedQuery } from "../queries/named_queries.ts";
import type { PageViewSource } from "../queries/source.ts";
import { mapCloudFrontRecord } from "../transform/cloudfront_record.ts";
import type { PageViewRow } from "../transform/row.ts";
import { dailySalt } from "../transform/visitor_key.ts";

/** What happened to one day. */
export interface BackfillDay {
  /** The UTC day. */
  readonly day: string;
  /** `inserted` (rows loaded now) or `skipped` (the table already had rows for it). */
  readonly result: "inserted" | "skipped";
  /** Rows inserted now, or rows already there when skipped. */
  readonly rows: number;
  /** Log events that could not become a row (not JSON, or missing a required field). */
  readonly unmapped: number;
}

/** What the backfill needs. */
export interface BackfillDeps {
  /** The page-view table. */
  readonly source: PageViewSource;
  /** The salt secret (32 bytes). */
  readonly secret: Uint8Array;
  /** The log messages around one day, page by page. */
  readMessages(day: string): AsyncIterable<string[]>;
  /** Called after each day (per-day output, progress bar). */
  onDay?(report: BackfillDay, done: number, total: number): void;
}

/**
 * Backfills the days, oldest first.
 *
 * @param days the days ({@linkcode backfillDays})
 * @param deps table, secret, log reader, per-day callback
 * @returns one report per day
 */
export async function runBackfill(
  days: readonly string[],
  deps: BackfillDeps,
): Promise<BackfillDay[]> {
  const reports: BackfillDay[] = [];
  for (const [i, day] of days.entries()) {
    const report = await backfillDay(day, deps);
    reports.push(report);
    deps.onDay?.(report, i + 1, days.length);
  }
  return reports;
}

async function backfillDay(day: string, deps: BackfillDeps): Promise<BackfillDay> {
  const existing = await runNamedQuery(deps.source, "row_count", {
    from: day,
    to: day,
    includeBots: true,
  }, { compare: false });
  if ((existing.total ?? 0) > 0) {
    return { day, result: "skipped", rows: existing.total ?? 0, unmapped: 0 };
  }
  const salt = dailySalt(deps.secret, day);
  // The day's own salt only: rows of neighbouring days read in the margin belong to them.
  const saltFor = (d: string) => d === day ? salt : dailySalt(deps.secret, d);
  const rows: PageViewRow[] = [];
  let unmapped = 0;
  for await (const page of deps.readMessages(day)) {
    for (const message of page) {
      let record: unknown;
      try {
        record = JSON.parse(message);
      } catch {
        unmapped++;
        continue;
      }
      const out = mapCloudFrontRecord(record, saltFor);
      if (!("row" in out)) unmapped++;
      else if (out.row.day === day) rows.push(out.row);
    }
  }
  return { day, result: "inserted", rows: await insertRows(deps.source, rows), unmapped };
}
