/**
 * The dashboard's roll-up of the site's table: a DuckDB file under the directory the deploy
 * task may write (`$HOME/.cache/org-deploy/analytics/`), one per table, attached beside the
 * table so it outlives the dashboard and each closed day is rolled up once, not at every
 * start. Without `HOME` it lives in memory for the dashboard's lifetime.
 *
 * @module
 */
import { join } from "node:path";
import { deployTempRoot, type Environ } from "@org/deploy/plugin";
import { rolledScans } from "./named_queries.ts";
import { attachRollup } from "./rollup.ts";
import type { PageViewSource } from "./source.ts";
import type { AnalyticsConfig } from "../section.ts";

/**
 * The roll-up file of a table (pure): `<temp root>/analytics/<bucket>.<namespace>.<table>.duckdb`.
 *
 * @param environ the CLI's environment (`HOME`)
 * @param config the resolved `analytics` section
 * @returns the path, or `:memory:` without a home directory
 */
export function rollupPath(environ: Environ, config: AnalyticsConfig): string {
  const root = deployTempRoot(environ);
  if (!root) return ":memory:";
  return join(
    root,
    "analytics",
    `${config.tableBucket}.${config.namespace}.${config.table}.duckdb`,
  );
}

/**
 * Attaches the roll-up to an open source.
 *
 * @param source the site's table
 * @param path where the roll-up lives ({@linkcode rollupPath})
 * @param now the clock deciding which days are closed
 * @param mkdir creates the file's directory
 * @param warn told, in a line, when a read through the roll-up failed and the table answered
 * @returns the source with its roll-up; `using` closes it as the source
 */
export async function withRollup(
  source: PageViewSource,
  path: string,
  now: () => number,
  mkdir: (dir: string) => Promise<void>,
  warn: (line: string) => void = () => {},
): Promise<PageViewSource> {
  if (path !== ":memory:") await mkdir(join(path, ".."));
  const rollup = await attachRollup(source, { path, scans: rolledScans(), now });
  return {
    ...source,
    rollup,
    rollupFailed: (err) =>
      warn(
        `the roll-up ${path} failed, so the table answered instead: ` +
          (err instanceof Error ? err.message : String(err)),
      ),
  };
}
