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
  /**
   * The daily roll-up of the table (`rollup.ts`), where one is attached: the named queries
   * then read a range's closed days from it and only its open days from the table.
   */
  readonly rollup?: Rollup;
  /**
   * Told when a read through the roll-up failed and the table answered instead, so the
   * operator hears of a broken roll-up once per failed read rather than never.
   */
  rollupFailed?(err: unknown): void;
  /**
   * The table's current snapshot id, where the table has snapshots (the Iceberg table; a local
   * table has none): the roll-up reads the days' fingerprints again only once it changed.
   */
  snapshot?(): Promise<string | undefined>;
}

/** What one {@linkcode Rollup.refresh} did. */
export interface RollupReport {
  /** Days rolled up (new, or changed since they were). */
  readonly rolled: readonly string[];
  /** Days dropped: rolled up once, without rows now. */
  readonly dropped: readonly string[];
  /** Closed days whose fingerprint was read. */
  readonly checked: number;
}

/** The roll-up of one table, as the named queries read it. */
export interface Rollup {
  /** The last closed day now (`rollup.ts`: the pipeline can no longer add to it). */
  lastClosedDay(): string;
  /**
   * The quoted table of a scan's rolled-up rows: `rolled_day`, `bots` (the bots rule it was
   * grouped for), then `groupedSql`'s columns for every member.
   */
  table(scan: string): string;
  /**
   * Rolls up every closed day of the range that is not, or whose rows changed since it was;
   * drops those without rows. One refresh runs at a time; a refresh of the same days asked
   * while one runs shares it.
   *
   * @param days the days (the open ones among them are left alone)
   * @returns what it did
   */
  refresh(days: { readonly from: string; readonly to: string }): Promise<RollupReport>;
  /**
   * The closed days of the range that {@linkcode Rollup.refresh} would roll up or drop now
   * (new, changed or without rows), read at once and left as they are.
   *
   * @param days the days (the open ones among them are left out)
   * @returns the days, `YYYY-MM-DD`, oldest first
   */
  stale(days: { readonly from: string; readonly to: string }): Promise<string[]>;
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
