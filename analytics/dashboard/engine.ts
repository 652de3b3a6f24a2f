/**
 * The dashboard's query engine, opened apart from the server: the page and every refusal of
 * the API work whether or not DuckDB, its extensions, the credentials or the table are
 * available. A query waits for the one open in flight; when opening fails, every waiting query
 * gets the same `DeployError` (its code, message and hint reach the page), and the next query
 * tries again, so reloading the page after fixing the cause is enough.
 *
 * @module
 */
import { DeployError } from "@org/deploy/plugin";
import { ANALYTICS_ERROR_CODES } from "../section.ts";
import type { PageViewSource } from "../queries/source.ts";

/** The engine as the dashboard command holds it. */
export interface DashboardEngine extends Disposable {
  /**
   * The open source, opening it first if needed.
   *
   * @throws {DeployError} why it cannot be opened
   */
  source(): Promise<PageViewSource>;
}

/**
 * Makes the engine over an opener (not called until the first `source()`).
 *
 * @param open opens the table (DuckDB, extensions, credentials, attach)
 * @returns the engine; `using` closes what was opened
 */
export function createDashboardEngine(open: () => Promise<PageViewSource>): DashboardEngine {
  let opened: PageViewSource | undefined;
  let pending: Promise<PageViewSource> | undefined;
  let closed = false;
  return {
    source() {
      if (opened) return Promise.resolve(opened);
      pending ??= open().then(
        (source) => {
          // Stopped while it was opening: close it at once rather than leak DuckDB.
          if (closed) source[Symbol.dispose]();
          else opened = source;
          pending = undefined;
          return source;
        },
        (err: unknown) => {
          pending = undefined;
          throw engineError(err);
        },
      );
      return pending;
    },
    [Symbol.dispose]() {
      closed = true;
      opened?.[Symbol.dispose]();
      opened = undefined;
    },
  };
}

/**
 * Why the engine cannot open, as a `DeployError` (pure): one already is one; anything else
 * (a native failure inside DuckDB, a malformed endpoint variable) becomes
 * `query_engine_unavailable` with its message.
 *
 * @param err what opening threw
 * @returns the error the page shows
 */
export function engineError(err: unknown): DeployError {
  if (err instanceof DeployError) return err;
  return new DeployError(
    ANALYTICS_ERROR_CODES.queryEngineUnavailable,
    `the query engine could not open: ${err instanceof Error ? err.message : String(err)}`,
    {
      hint: "reinstall the dependencies (deno install) on a platform @duckdb/node-api supports",
      cause: err,
    },
  );
}
