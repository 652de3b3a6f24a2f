/**
 * Opening DuckDB (the native addon `@duckdb/node-api`) the way every source needs it: one
 * instance, one connection, the session time zone set to UTC so day and hour buckets are UTC
 * days and hours whatever the machine's zone.
 *
 * Under Deno the addon needs `--allow-ffi` (Node-API addons are foreign code); it can be
 * scoped to the directory holding it (`--allow-ffi=./node_modules` with `nodeModulesDir`).
 * The addon is imported on first use, not with this module, so the plugin's other commands
 * load and run without that permission.
 *
 * @module
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { DeployError } from "@org/deploy/plugin";
import { ANALYTICS_ERROR_CODES } from "../section.ts";

/** An open DuckDB connection and the way to close it with its instance. */
export interface OpenDuckDB {
  /** The connection. */
  readonly connection: DuckDBConnection;
  /** Closes the connection and the instance. */
  close(): void;
}

/**
 * Opens a DuckDB instance and one connection.
 *
 * @param path a database file or `:memory:`
 * @param options DuckDB settings given at start (e.g. `autoinstall_known_extensions`)
 * @returns the connection
 * @throws {DeployError} `query_engine_unavailable` when the addon cannot load
 */
export async function openDuckDB(
  path: string,
  options: Record<string, string> = {},
): Promise<OpenDuckDB> {
  const { DuckDBInstance } = await loadAddon();
  const instance = await DuckDBInstance.create(path, options);
  const connection = await instance.connect();
  const close = () => {
    connection.closeSync();
    instance.closeSync();
  };
  try {
    await connection.run("SET TimeZone = 'UTC'");
    return { connection, close };
  } catch (err) {
    close();
    throw err;
  }
}

/** Imports the addon; a refusal (no `--allow-ffi`) or a missing binary says what to do. */
async function loadAddon(): Promise<typeof import("@duckdb/node-api")> {
  try {
    return await import("@duckdb/node-api");
  } catch (err) {
    const denied = err instanceof Deno.errors.NotCapable ||
      err instanceof Deno.errors.PermissionDenied;
    throw new DeployError(
      ANALYTICS_ERROR_CODES.queryEngineUnavailable,
      denied
        ? "DuckDB's native addon may not load: Deno needs --allow-ffi for it"
        : `DuckDB's native addon cannot load: ${err instanceof Error ? err.message : String(err)}`,
      {
        hint: denied
          ? "add --allow-ffi (e.g. --allow-ffi=./node_modules) to the deploy task's flags"
          : "reinstall the dependencies (deno install) on a platform @duckdb/node-api supports",
        cause: err,
      },
    );
  }
}
