/**
 * The analytics plugin with one command that reads the table built by its `…With` form over a
 * local DuckDB table of known rows, in place of the site's Iceberg table (the one thing
 * swapped): what the CLI tests of `export` and `digest` run, flags, output and errors real.
 *
 * @module
 */
import plugin from "../../analytics/mod.ts";
import type { OpenExportTable } from "../../analytics/commands/export.ts";
import { insertRows } from "../../analytics/queries/insert_rows.ts";
import { openLocalTable } from "../../analytics/queries/local_table.ts";
import type { AnalyticsConfig } from "../../analytics/section.ts";
import type { PageViewRow } from "../../analytics/transform/row.ts";
import type { PluginCommand } from "@org/deploy/plugin";

/**
 * The plugin, for `world.run(…, { importPlugin })`, with `name` reading `rows`.
 *
 * @param name the command to swap (`export`, `digest`)
 * @param commandWith the command over a table opener
 * @param rows the table's rows (each run opens a fresh table of them)
 * @returns the plugin module's import
 */
export function localTablePlugin(
  name: string,
  commandWith: (open: OpenExportTable) => PluginCommand<AnalyticsConfig>,
  rows: readonly PageViewRow[],
): () => Promise<{ default: typeof plugin }> {
  return () =>
    Promise.resolve({
      default: {
        ...plugin,
        commands: plugin.commands.map((c) =>
          c.name === name
            ? commandWith(async () => {
              const source = await openLocalTable();
              await insertRows(source, rows);
              return source;
            })
            : c
        ),
      },
    });
}
