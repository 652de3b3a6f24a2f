/**
 * How a resource graph walk is shown, one line per node, the same for the site's commands and
 * every plugin's: what bootstrap did, what status found, what destroy did, and the DNS records
 * a bootstrap asks the user to create (pure).
 *
 * @module
 */
import type { NodeReport, NodeResult, TeardownResult } from "./reconcile.ts";
import type { Output } from "../output.ts";
import type { ValidationRecord } from "./nodes/certificate.ts";

/** The styles a line may use. */
export type Paint = Output["paint"];

/**
 * One bootstrap line: `  created   <label> (<drift>)`.
 *
 * @param paint the output's styles
 * @param r the node's result
 * @returns the line
 */
export function reconcileLine(paint: Paint, r: NodeResult<string>): string {
  const style = r.action === "created"
    ? paint.green
    : r.action === "updated"
    ? paint.yellow
    : r.action === "adopted"
    ? paint.cyan
    : paint.dim;
  return `  ${style(r.action.padEnd(9))} ${r.label}${
    r.drift.length > 0 ? ` (${r.drift.join("; ")})` : ""
  }`;
}

/**
 * The one-line summary of a node's outputs (pure): ids and names, not lists.
 *
 * @param report the node's report
 * @returns `id=… arn=… …`
 */
export function outputSummary(report: NodeReport<string>): string {
  const o = report.live ?? report.recorded ?? {};
  return ["id", "arn", "domainName", "name", "status", "retentionDays"]
    .filter((k) => o[k] !== undefined && o[k] !== null && o[k] !== "")
    .map((k) => `${k}=${String(o[k])}`)
    .join(" ");
}

/**
 * One status line: `  present   <label>: <outputs>`, or the drift, the error, or why an
 * optional node is missing.
 *
 * @param paint the output's styles
 * @param r the node's report
 * @param optionalMissing what to say of an optional node that is missing
 * @returns the line
 */
export function statusLine(
  paint: Paint,
  r: NodeReport<string>,
  optionalMissing = "not made yet",
): string {
  const tag = r.status === "present"
    ? paint.green("present ")
    : r.status === "drifted"
    ? paint.yellow("drifted ")
    : paint.red(r.status.padEnd(8));
  const detail = r.status === "error"
    ? r.error?.message ?? ""
    : r.status === "missing" && r.optional
    ? optionalMissing
    : r.status === "drifted"
    ? r.drift.join("; ")
    : outputSummary(r);
  return `  ${tag}  ${r.label}${detail ? `: ${detail}` : ""}`;
}

/**
 * One destroy line: `  deleted  <label>`, or `kept` with the reason.
 *
 * @param paint the output's styles
 * @param r the node's result
 * @returns the line
 */
export function teardownLine(paint: Paint, r: TeardownResult<string>): string {
  const tag = r.action === "deleted" ? paint.red("deleted") : paint.dim(r.action.padEnd(7));
  return `  ${tag}  ${r.label}${r.reason ? ` (${r.reason})` : ""}`;
}

/**
 * A table of DNS records to create (pure): the certificate's validation records, or the
 * preview stack's records for another DNS provider.
 *
 * @param records the records
 * @returns lines: a header, then one row per record, columns aligned
 */
export function validationTable(
  records: readonly Pick<ValidationRecord, "name" | "type" | "value">[],
): string[] {
  const rows = [["NAME", "TYPE", "VALUE"], ...records.map((r) => [r.name, r.type, r.value])];
  const width = (i: number) => Math.max(...rows.map((r) => r[i]!.length));
  return rows.map((r) => `  ${r[0]!.padEnd(width(0))}  ${r[1]!.padEnd(width(1))}  ${r[2]}`);
}
