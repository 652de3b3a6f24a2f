/**
 * The test and benchmark implementation of {@linkcode PageViewSource}: a DuckDB table of the
 * pipeline's schema (from the transform's `ROW_COLUMNS`) in memory or in a local file. The
 * named queries and the backfill run on it exactly as on the Iceberg table.
 *
 * @module
 */
import { columnDefinitions, type PageViewSource, quoteIdentifier } from "./source.ts";
import { openDuckDB } from "./duckdb.ts";

/** The local table's name. */
export const LOCAL_TABLE = "page_views";

/**
 * Opens a DuckDB database (in memory unless `path` is given) holding an empty page-view table.
 *
 * @param path a database file, or `:memory:` (default)
 * @returns the source; `using` closes it
 *
 * @example
 * ```ts
 * import { insertRows } from "./insert_rows.ts";
 *
 * using source = await openLocalTable();
 * await insertRows(source, []); // 0 rows written
 * ```
 */
export async function openLocalTable(path = ":memory:"): Promise<PageViewSource> {
  const { connection, use, close } = await openDuckDB(path);
  try {
    const relation = quoteIdentifier(LOCAL_TABLE);
    await connection.run(`CREATE TABLE IF NOT EXISTS ${relation} (${columnDefinitions()})`);
    return { connection, use, relation, [Symbol.dispose]: close };
  } catch (err) {
    close();
    throw err;
  }
}
