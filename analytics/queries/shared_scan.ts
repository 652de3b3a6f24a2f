/**
 * Scans that several named queries share. Most of the page's panels count page views by one
 * column or another, and two group the rows per visitor and day; each used to read and filter
 * the whole range on its own, and reading and filtering was most of each one's cost. A shared
 * scan reads the range once and groups it by every member's columns at once (`GROUPING SETS`):
 * a few hundred rows, kept in a temporary table of one connection, which each member then
 * finishes (sums, ranks, fills empty days) with its own SQL. A member run alone uses the same
 * SQL with its own grouping set only, so a query's answer has one definition either way.
 *
 * Only what is in flight is shared (the page asks for all its panels at once): nothing is
 * cached after it ends, so a later request always sees the table as it is then.
 *
 * @module
 */
import type { QueryRange } from "./range.ts";

/** A scan several queries read. */
export interface SharedScan {
  /** The columns its grouping sets choose from, in a fixed order. */
  readonly columns: readonly string[];
  /**
   * The rows to group (pure SQL selecting {@linkcode columns}), for the members that read
   * them this time (a scan may read less when some are absent).
   */
  rows(relation: string, range: QueryRange, members: readonly string[]): string;
  /**
   * Columns of its rows summed in every group beside the count `n` (each named as the
   * column), for members that add up more than rows (bytes served).
   */
  readonly sums?: readonly string[];
  /**
   * A column of the rolled-up grouped rows (`rollup.ts`, rolled up one day at a time) as the
   * range's own grouped rows have it (pure SQL); default the column itself. The page-view scan
   * rolls hours up and answers a range of days by day.
   */
  rolled?(column: string, range: QueryRange): string;
}

/** How one query reads a shared scan. */
export interface ScanMember<S extends string> {
  /** The scan. */
  readonly scan: S;
  /** The columns it groups by (some of the scan's). */
  readonly groupBy: readonly string[];
  /**
   * Its rows from its groups (pure SQL). `grouped` is a subquery with one row per group: the
   * columns of {@linkcode groupBy}, `n` (the rows in the group) and the scan's sums.
   */
  finish(grouped: string, range: QueryRange): string;
}

/** A member and its name, as {@linkcode groupedSql} takes them. */
export interface NamedMember<S extends string, N extends string = string> {
  /** The query's name. */
  readonly name: N;
  /** How it reads the scan. */
  readonly member: ScanMember<S>;
}

/** The column of the grouped rows that says which grouping set a row belongs to. */
const GROUPING = "grouping_id";

/**
 * The grouped rows of a scan for some members (pure): one row per group of every member's
 * grouping set, each with `grouping_id` and `n`.
 *
 * @param scan the scan
 * @param relation the table's quoted name
 * @param range the range (its length may choose a column's expression)
 * @param members the members it serves
 * @returns the SQL
 */
export function groupedSql<S extends string>(
  scan: SharedScan,
  relation: string,
  range: QueryRange,
  members: readonly NamedMember<S>[],
): string {
  const columns = usedColumns(scan, members);
  const sets = [...new Set(members.map((m) => `(${m.member.groupBy.join(", ")})`))];
  const sums = (scan.sums ?? []).map((c) => `, CAST(sum(${c}) AS BIGINT) AS ${c}`).join("");
  return `SELECT GROUPING_ID(${columns.join(", ")}) AS ${GROUPING}, ${columns.join(", ")}, ` +
    `count(*) AS n${sums} FROM (${scan.rows(relation, range, members.map((m) => m.name))}) ` +
    `GROUP BY GROUPING SETS (${sets.join(", ")})`;
}

/**
 * A member's rows from the grouped rows of {@linkcode groupedSql} (pure).
 *
 * @param scan the scan
 * @param member the member
 * @param members every member the grouped rows were made for
 * @param grouped the grouped rows: a table name or a parenthesised query
 * @param range the range
 * @returns the SQL
 */
export function memberSql<S extends string>(
  scan: SharedScan,
  member: ScanMember<S>,
  members: readonly NamedMember<S>[],
  grouped: string,
  range: QueryRange,
): string {
  const id = groupingId(usedColumns(scan, members), member.groupBy);
  return member.finish(`(SELECT * FROM ${grouped} WHERE ${GROUPING} = ${id})`, range);
}

/**
 * The grouped rows of {@linkcode groupedSql} from parts that each hold some of them (pure):
 * rolled-up days and raw days of one range. Every part must have been grouped for the same
 * members; a count is a sum over parts, so the groups of the whole range are the parts'
 * groups with their counts added.
 *
 * @param scan the scan
 * @param members the members every part was grouped for
 * @param parts queries selecting `grouping_id`, the used columns, `n` and the sums
 * @returns the SQL
 */
export function regroupedSql<S extends string>(
  scan: SharedScan,
  members: readonly NamedMember<S>[],
  parts: readonly string[],
): string {
  const columns = usedColumns(scan, members);
  const sums = ["n", ...(scan.sums ?? [])].map((c) => `CAST(sum(${c}) AS BIGINT) AS ${c}`);
  return `SELECT ${GROUPING}, ${columns.join(", ")}, ${sums.join(", ")} FROM (` +
    parts.map((p) => `(${p})`).join(" UNION ALL BY NAME ") + ") GROUP BY ALL";
}

/**
 * The used columns of a rolled-up table's rows for a range (pure): `grouping_id`, each column
 * as {@linkcode SharedScan.rolled} maps it, `n` and the sums.
 *
 * @param scan the scan
 * @param members the members the rows were grouped for
 * @param range the range asked for
 * @returns the select list
 */
export function rolledColumns<S extends string>(
  scan: SharedScan,
  members: readonly NamedMember<S>[],
  range: QueryRange,
): string {
  const columns = usedColumns(scan, members).map((c) => {
    const mapped = scan.rolled?.(c, range) ?? c;
    return mapped === c ? c : `${mapped} AS ${c}`;
  });
  return [GROUPING, ...columns, "n", ...(scan.sums ?? [])].join(", ");
}

/** The scan's columns that some member groups by, in the scan's order. */
function usedColumns<S extends string>(
  scan: SharedScan,
  members: readonly NamedMember<S>[],
): string[] {
  return scan.columns.filter((c) => members.some((m) => m.member.groupBy.includes(c)));
}

/**
 * The value `GROUPING_ID(columns)` takes on the rows of one grouping set (pure): one bit per
 * column, the first the highest, set where the column is not in the set.
 *
 * @param columns the columns GROUPING_ID names
 * @param set the grouping set
 * @returns the id
 */
export function groupingId(columns: readonly string[], set: readonly string[]): number {
  return columns.reduce((id, c) => id * 2 + (set.includes(c) ? 0 : 1), 0);
}

/** Runs each shared scan once while it is in flight, for every query that asks meanwhile. */
export interface ScanSharing {
  /**
   * The result of `run` for `key` on `source`: the one in flight when there is one, else a
   * new run (forgotten when it settles).
   */
  share<T>(source: object, key: string, run: () => Promise<T>): Promise<T>;
}

/**
 * Makes a {@linkcode ScanSharing} (the dashboard holds one for its lifetime).
 *
 * @returns the sharing
 */
export function createScanSharing(): ScanSharing {
  const inFlight = new WeakMap<object, Map<string, Promise<unknown>>>();
  return {
    share<T>(source: object, key: string, run: () => Promise<T>): Promise<T> {
      let runs = inFlight.get(source);
      if (!runs) inFlight.set(source, runs = new Map());
      const running = runs.get(key);
      if (running) return running as Promise<T>;
      const started = run().finally(() => runs.delete(key));
      runs.set(key, started);
      return started;
    },
  };
}
