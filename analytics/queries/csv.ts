/**
 * A named query's rows as CSV (RFC 4180), as the dashboard's `/api/queries/<name>.csv` and
 * `deploy analytics export --format csv` write them: one header line of the query's columns,
 * one line per row, CRLF line ends.
 *
 * The cells come from request logs, so a visitor writes them (a path, a Referer, a campaign
 * name). A spreadsheet that opens the file would evaluate a cell starting with `=`, `+`, `-`,
 * `@`, a tab or a carriage return as a formula even inside quotes; as OWASP's CSV-injection
 * guidance says, such a text cell gets a leading `'`, which spreadsheets show as text. Every
 * text cell is quoted, with `"` doubled, so commas, quotes and line breaks stay in their cell.
 * Numbers and booleans are the queries' own figures and are written as they are; a null cell
 * is empty.
 *
 * @module
 */
import type { Cell, QueryResult } from "./named_queries.ts";

/** The media type of the CSV answers. */
export const CSV_CONTENT_TYPE = "text/csv; charset=utf-8";

/** The characters that make a spreadsheet read a cell as a formula (OWASP). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One cell as CSV (pure).
 *
 * @param value the cell
 * @returns its CSV text: a quoted text, neutralised when it could be read as a formula
 *
 * @example
 * ```ts
 * csvCell('=HYPERLINK("x")'); // "\"'=HYPERLINK(\"\"x\"\")\""
 * csvCell(12); // "12"
 * ```
 */
export function csvCell(value: Cell): string {
  if (value === null) return "";
  if (typeof value !== "string") return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return `"${text.replaceAll('"', '""')}"`;
}

/**
 * A result's rows as CSV (pure).
 *
 * @param columns the query's columns, in order (the header)
 * @param rows the rows
 * @returns the CSV text, every line ending in CRLF
 */
export function toCsv(
  columns: readonly string[],
  rows: QueryResult["rows"],
): string {
  const lines = [
    columns.map(csvCell),
    ...rows.map((r) => columns.map((c) => csvCell(r[c] ?? null))),
  ];
  return lines.map((cells) => cells.join(",") + "\r\n").join("");
}

/**
 * The file name a download of a result gets (pure): the query and its range, e.g.
 * `entry_pages_2026-03-01_2026-03-07.csv`.
 *
 * @param result the result
 * @param extension `csv` or `json`
 * @returns the name
 */
export function exportFileName(result: QueryResult, extension: "csv" | "json"): string {
  return `${result.query}_${result.from}_${result.to}.${extension}`;
}
