/**
 * `deploy analytics export`'s decisions and its one query: the flags checked into a request
 * (pure, every problem at once), and the request answered with exactly what the dashboard's
 * API answers (`/api/queries/<name>` as JSON, `/api/queries/<name>.csv` as CSV).
 *
 * @module
 */
import { DeployError } from "@org/deploy/plugin";
import { ANALYTICS_ERROR_CODES } from "../section.ts";
import { toCsv } from "./csv.ts";
import {
  isQueryName,
  NAMED_QUERIES,
  QUERY_NAMES,
  type QueryName,
  runNamedQuery,
} from "./named_queries.ts";
import { parseQueryRange, type QueryRange } from "./range.ts";
import type { PageViewSource } from "./source.ts";

/** The formats `--format` takes. */
export const EXPORT_FORMATS = ["csv", "json"] as const;

/** One export, checked. */
export interface ExportRequest {
  /** The query. */
  readonly query: QueryName;
  /** The range and bots rule. */
  readonly range: QueryRange;
  /** `csv` or `json`. */
  readonly format: typeof EXPORT_FORMATS[number];
  /** The file to write, as given (relative to the working directory); absent for stdout. */
  readonly out?: string;
}

/** The command's flags as the CLI parsed them. */
export type ExportFlags = Readonly<Record<string, string | boolean | undefined>>;

/**
 * Checks the flags (pure). `--from`, `--to` and `--query` are required; `--format` defaults to
 * `json` with the global `--json` and to `csv` otherwise; `--bots` overrides `analytics.bots`.
 *
 * @param flags `from`, `to`, `query`, `format`, `out`, `bots`
 * @param options the configured bots default, and whether `--json` was given
 * @returns the request
 * @throws {DeployError} `unknown_query` for a name that is not a query; `usage` for missing or
 *   malformed days, an inverted or too long range, or CSV asked on stdout under `--json`
 */
export function parseExportRequest(
  flags: ExportFlags,
  options: { readonly includeBotsByDefault: boolean; readonly json: boolean },
): ExportRequest {
  const text = (key: string) => typeof flags[key] === "string" ? flags[key] : undefined;
  const query = text("query");
  if (query !== undefined && !isQueryName(query)) {
    throw new DeployError(ANALYTICS_ERROR_CODES.unknownQuery, `no query named "${query}"`, {
      hint: `--query takes one of: ${QUERY_NAMES.join(", ")}`,
    });
  }
  const params = new URLSearchParams();
  for (const key of ["from", "to", "bots"]) {
    const value = text(key);
    if (value !== undefined) params.set(key, value);
  }
  const parsed = parseQueryRange(params, options.includeBotsByDefault);
  const problems = [
    ...(query === undefined ? ["--query is required"] : []),
    // The range's own messages name its parameters; on the command line they are flags.
    ...("errors" in parsed ? parsed.errors.map((e) => e.replace(/^(from|to)\b/, "--$1")) : []),
  ];
  const format = (text("format") ?? (options.json ? "json" : "csv")) as ExportRequest["format"];
  const out = text("out");
  if (format === "csv" && options.json && out === undefined) {
    problems.push("--json prints JSON on stdout: give --format json, or --out FILE for CSV");
  }
  if (problems.length > 0 || "errors" in parsed || query === undefined) {
    throw new DeployError("usage", `analytics export: ${problems.join("; ")}`, {
      hint: "e.g. deploy analytics export --from 2026-03-01 --to 2026-03-07 --query " +
        "entry_pages --format csv --out entry_pages.csv (UTC days, both included)",
    });
  }
  return { query, range: parsed.range, format, ...(out !== undefined ? { out } : {}) };
}

/**
 * Runs the request's query and renders it as the dashboard's API would.
 *
 * @param source the table
 * @param request the checked request
 * @returns the text (CSV with CRLF lines, or the JSON answer, indented) and its row count
 */
export async function exportQuery(
  source: PageViewSource,
  request: ExportRequest,
): Promise<{ readonly text: string; readonly rows: number }> {
  const result = await runNamedQuery(source, request.query, request.range);
  const text = request.format === "csv"
    ? toCsv(NAMED_QUERIES[request.query].columns, result.rows)
    : JSON.stringify(result, null, 2) + "\n";
  return { text, rows: result.rows.length };
}
