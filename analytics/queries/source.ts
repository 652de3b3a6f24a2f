/**
 * The port the named queries read through: a DuckDB connection and the page-view table's
 * name on it. The real source attaches the Iceberg table in S3 Tables
 * (`s3_tables_source.ts`); tests and benchmarks use a local DuckDB table of the same schema
 * (`local_table.ts`). The SQL is the same on both, so what the tests prove is what runs.
 *
 * @module
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import type { IcebergType } from "../transform/row.ts";
import { ROW_COLUMNS } from "../transform/row.ts";

/** Where the page-view rows are, for the queries and the backfill. */
export interface PageViewSource extends Disposable {
  /** The connection set-up statements and writes run on. */
  readonly connection: DuckDBConnection;
  /**
   * Runs `fn` on a pooled connection of the same database, so queries run side by side
   * (`duckdb.ts`); the named queries read through here.
   */
  use<T>(fn: (connection: DuckDBConnection) => Promise<T>): Promise<T>;
  /**
   * The table as a quoted SQL name (`"analytics"."web"."page_views"`). It comes from the
   * validated configuration, never from a request.
   */
  readonly relation: string;
}

/** The DuckDB type of each Iceberg type the table uses. */
export const DUCKDB_TYPES: Readonly<Record<IcebergType, string>> = {
  timestamptz: "TIMESTAMPTZ",
  date: "DATE",
  string: "VARCHAR",
  int: "INTEGER",
  long: "BIGINT",
  double: "DOUBLE",
  boolean: "BOOLEAN",
};

/**
 * The column list of the table in DuckDB DDL (pure), from the transform's own schema.
 *
 * @returns `event_time TIMESTAMPTZ NOT NULL, …`
 */
export function columnDefinitions(): string {
  return ROW_COLUMNS.map((c) =>
    `${quoteIdentifier(c.name)} ${DUCKDB_TYPES[c.type]}${c.required ? " NOT NULL" : ""}`
  ).join(", ");
}

/**
 * Quotes one SQL identifier (pure). Only configuration-validated names pass through here, but
 * quoting keeps a name a name whatever it holds.
 *
 * @param name the identifier
 * @returns `"name"` with inner quotes doubled
 */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
