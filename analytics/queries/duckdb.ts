/**
 * Opening DuckDB (the native addon `@duckdb/node-api`) the way every source needs it: one
 * instance, its first connection, and a small pool of further connections for queries that run
 * side by side, each with the session time zone set to UTC so day and hour buckets are UTC
 * days and hours whatever the machine's zone.
 *
 * One connection runs one statement at a time, so the dashboard's page, which asks for all its
 * queries at once, would wait for each in turn. Connections of one instance share its attached
 * catalogs, secrets, loaded extensions and worker threads, so pooled connections see the same
 * table at no extra set-up, and the instance's threads work on all the queries in flight.
 *
 * Under Deno the addon needs `--allow-ffi` (Node-API addons are foreign code); it can be
 * scoped to the directory holding it ({@linkcode addonFolder}: the site's `./node_modules` for the
 * published package, the checkout's `node_modules` when the CLI runs from a checkout).
 * The addon is imported on first use, not with this module, so the plugin's other commands
 * load and run without that permission.
 *
 * @module
 */
import { isAbsolute, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { DuckDBConnection, DuckDBValue } from "@duckdb/node-api";
import { DeployError } from "@org/deploy/plugin";
import { ANALYTICS_ERROR_CODES } from "../section.ts";

/**
 * How many connections run queries side by side. The instance's worker threads (one per core)
 * are shared by all its connections, so more connections than a few only queue inside it; a
 * few let each query's single-threaded phases (planning, the final merge, handing the rows to
 * JavaScript) overlap another's parallel ones. docs/analytics.md has what it gained.
 */
export const QUERY_CONNECTIONS = 4;

/** An open DuckDB instance: its first connection, a pool of more, and the way to close it all. */
export interface OpenDuckDB {
  /** The first connection (set-up statements, the backfill's writes). */
  readonly connection: DuckDBConnection;
  /**
   * Runs `fn` on a pooled connection of the same instance (at most {@linkcode QUERY_CONNECTIONS}
   * open; a caller beyond that waits for one to be free).
   */
  use<T>(fn: (connection: DuckDBConnection) => Promise<T>): Promise<T>;
  /** Closes every connection and the instance. */
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
  const opened: DuckDBConnection[] = [];
  const connect = async () => {
    const c = await instance.connect();
    opened.push(c);
    await c.run("SET TimeZone = 'UTC'");
    return c;
  };
  const close = () => {
    for (const c of opened) c.closeSync();
    instance.closeSync();
  };
  try {
    const connection = await connect();
    return { connection, use: connectionPool(connect, QUERY_CONNECTIONS), close };
  } catch (err) {
    close();
    throw err;
  }
}

/**
 * Lends connections made by `connect`, opening one only when none is idle and fewer than
 * `size` exist; a caller beyond that waits for the first one given back (first come, first
 * served).
 */
function connectionPool(
  connect: () => Promise<DuckDBConnection>,
  size: number,
): OpenDuckDB["use"] {
  const idle: DuckDBConnection[] = [];
  const waiting: Array<(c: DuckDBConnection) => void> = [];
  let count = 0;
  const take = (): Promise<DuckDBConnection> => {
    const free = idle.pop();
    if (free) return Promise.resolve(free);
    if (count < size) {
      count++;
      return connect().catch((err) => {
        count--;
        throw err;
      });
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const give = (c: DuckDBConnection) => {
    const next = waiting.shift();
    if (next) next(c);
    else idle.push(c);
  };
  return async (fn) => {
    const c = await take();
    try {
      return await fn(c);
    } finally {
      give(c);
    }
  };
}

/**
 * Runs SQL with those of `params` it names (`$name`), its rows as JavaScript objects: DuckDB
 * refuses a bound parameter the statement does not use, and the callers' statements use some
 * of a common set.
 *
 * @param c the connection
 * @param sql the statement
 * @param params the values it may name
 * @returns its rows
 */
export async function readBound(
  c: DuckDBConnection,
  sql: string,
  params: Readonly<Record<string, DuckDBValue>>,
): Promise<Record<string, unknown>[]> {
  const used = Object.fromEntries(
    Object.entries(params).filter(([name]) => new RegExp(`\\$${name}\\b`).test(sql)),
  );
  return (await c.runAndReadAll(sql, used)).getRowObjectsJS();
}

/**
 * The folder `--allow-ffi` must name for DuckDB's addon (pure). The published package's npm
 * dependencies sit in the site's own `node_modules`; run from a checkout of the repository, they
 * sit in the checkout's, which the site's `./node_modules` does not cover.
 *
 * @param moduleUrl `import.meta.url` of this module
 * @param cwd the working directory (the site), when readable
 * @returns `./node_modules`, or the checkout's `node_modules` (relative when inside `cwd`)
 *
 * @example
 * ```ts
 * addonFolder("file:///src/deploy/analytics/queries/duckdb.ts", "/src/blog");
 * // "/src/deploy/node_modules"
 * ```
 */
export function addonFolder(moduleUrl: string, cwd: string | undefined): string {
  if (!moduleUrl.startsWith("file:")) return "./node_modules";
  const folder = fileURLToPath(new URL("../../node_modules", moduleUrl));
  if (cwd === undefined) return folder;
  const rel = relative(cwd, folder);
  return rel.startsWith("..") || isAbsolute(rel) ? folder : `./${rel}`;
}

function currentCwd(): string | undefined {
  try {
    return Deno.cwd();
  } catch {
    return undefined; // no read permission for it: the absolute folder still works
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
          ? `add --allow-ffi=${
            addonFolder(import.meta.url, currentCwd())
          } (where DuckDB's addon is) to the deploy task's flags`
          : "reinstall the dependencies (deno install) on a platform @duckdb/node-api supports",
        cause: err,
      },
    );
  }
}
