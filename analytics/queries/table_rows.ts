/**
 * The table's row count for `deploy analytics status`: the `row_count` named query over every
 * day up to today, bots included. Status never fails for it: when the query engine cannot run
 * (no DuckDB extensions, the table not reachable) it says why instead.
 *
 * @module
 */
import { runNamedQuery } from "./named_queries.ts";
import type { PageViewSource } from "./source.ts";

/** The first day the count covers: before any CloudFront log a site can have. */
export const FIRST_DAY = "1970-01-01";

/** The count, or why there is none. */
export type RowCount = { readonly count: number } | { readonly count: null; readonly note: string };

/**
 * Counts every row up to `today`.
 *
 * @param open opens the table (and is closed here)
 * @param today the UTC day, `YYYY-MM-DD`
 * @returns the count, or a note saying why it is not available
 */
export async function tableRowCount(
  open: () => Promise<PageViewSource>,
  today: string,
): Promise<RowCount> {
  try {
    using source = await open();
    const result = await runNamedQuery(source, "row_count", {
      from: FIRST_DAY,
      to: today,
      includeBots: true,
    }, { compare: false });
    return { count: result.total ?? 0 };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { count: null, note: `not available: ${message}` };
  }
}
