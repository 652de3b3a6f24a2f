/**
 * Writing rows into the page-view table (the backfill's only write), one statement per call,
 * so a day lands whole or not at all: on the Iceberg table one `INSERT` is one commit.
 *
 * @module
 */
import type { DuckDBAppender } from "@duckdb/node-api";
import { type PageViewRow, ROW_COLUMNS, type RowColumn } from "../transform/row.ts";
import { DUCKDB_TYPES, type PageViewSource, quoteIdentifier } from "./source.ts";

/** The connection-local staging table the rows are appended to before the one INSERT. */
const STAGING = "page_view_staging";

/**
 * Inserts rows into the table in one statement. The rows go through a temporary staging table
 * (DuckDB's appender, fast and typed) and then one `INSERT … SELECT` into the table.
 *
 * @param source the table
 * @param rows the rows the transform made
 * @returns how many rows were inserted
 */
export async function insertRows(
  source: PageViewSource,
  rows: readonly PageViewRow[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const c = source.connection;
  // Timestamps and days are staged as text (the transform's ISO strings) and cast once in SQL.
  const staged = ROW_COLUMNS.map((col) =>
    `${quoteIdentifier(col.name)} ${isText(col) ? "VARCHAR" : DUCKDB_TYPES[col.type]}`
  ).join(", ");
  await c.run(`CREATE OR REPLACE TEMP TABLE ${STAGING} (${staged})`);
  try {
    const appender = await c.createAppender(STAGING, "main", "temp");
    try {
      for (const row of rows) {
        for (const col of ROW_COLUMNS) append(appender, col, row[col.name]);
        appender.endRow();
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
    const casts = ROW_COLUMNS.map((col) => {
      const name = quoteIdentifier(col.name);
      return isText(col) ? `CAST(${name} AS ${DUCKDB_TYPES[col.type]})` : name;
    }).join(", ");
    const names = ROW_COLUMNS.map((col) => quoteIdentifier(col.name)).join(", ");
    await c.run(`INSERT INTO ${source.relation} (${names}) SELECT ${casts} FROM ${STAGING}`);
    return rows.length;
  } finally {
    await c.run(`DROP TABLE IF EXISTS ${STAGING}`);
  }
}

function isText(col: RowColumn): boolean {
  return col.type === "timestamptz" || col.type === "date";
}

function append(appender: DuckDBAppender, col: RowColumn, value: unknown): void {
  if (value === null || value === undefined) return appender.appendNull();
  switch (col.type) {
    case "timestamptz":
    case "date":
    case "string":
      return appender.appendVarchar(String(value));
    case "int":
      return appender.appendInteger(Number(value));
    case "long":
      return appender.appendBigInt(BigInt(Math.trunc(Number(value))));
    case "double":
      return appender.appendDouble(Number(value));
    case "boolean":
      return appender.appendBoolean(value === true);
  }
}
