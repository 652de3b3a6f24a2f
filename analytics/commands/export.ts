/**
 * `deploy analytics export [env] --from DAY --to DAY --query NAME [--format csv|json]
 * [--out FILE] [--bots include|exclude]`: one named query's rows for scripts, exactly what the
 * dashboard's `/api/queries/<name>(.csv)` answers. The data goes to stdout or `--out FILE`;
 * progress goes to stderr, so a pipe receives only the data.
 *
 * @module
 */
import { isAbsolute, join } from "node:path";
import type { CommandContext, PluginCommand, PluginHost } from "@org/deploy/plugin";
import { EXPORT_FORMATS, exportQuery, parseExportRequest } from "../queries/export.ts";
import { QUERY_NAMES } from "../queries/named_queries.ts";
import { BOTS_VALUES, botsIncludedByDefault } from "../queries/range.ts";
import { openSiteTable } from "../queries/site_source.ts";
import type { PageViewSource } from "../queries/source.ts";
import { ANALYTICS_REGION } from "../pipeline/names.ts";
import type { AnalyticsConfig } from "../section.ts";

/** Opens the table an export reads (the site's own; a local table in tests). */
export type OpenExportTable = (
  ctx: CommandContext,
  config: AnalyticsConfig,
  host: PluginHost,
) => Promise<PageViewSource>;

/**
 * The `analytics export` command over a table opener.
 *
 * @param open opens the table (default: the site's table in S3 Tables)
 * @returns the command
 */
export function exportCommandWith(open: OpenExportTable): PluginCommand<AnalyticsConfig> {
  return {
    name: "export",
    summary: "write one query's rows (CSV or JSON) for a date range, as the dashboard has them",
    help: "Runs one of the dashboard's named queries on the site's page-view table (us-east-1)\n" +
      "for the UTC days --from to --to (both included) and writes its rows: CSV (RFC 4180, a\n" +
      "text cell starting with = + - @ tab or CR prefixed with ' so spreadsheets do not run\n" +
      "it) or the API's JSON, with the total and its change against the previous range.\n" +
      "Stdout unless --out FILE; progress on stderr. --bots overrides analytics.bots.\n" +
      `Queries: ${QUERY_NAMES.join(", ")}.\n` +
      "Needs DuckDB (Deno's --allow-ffi) and its extensions, as the dashboard does.",
    flags: {
      from: { type: "string", placeholder: "DAY", description: "first UTC day, YYYY-MM-DD" },
      to: { type: "string", placeholder: "DAY", description: "last UTC day, YYYY-MM-DD" },
      query: { type: "string", placeholder: "NAME", description: "the named query" },
      format: {
        type: "string",
        values: EXPORT_FORMATS,
        description: "csv (default) or json (default with --json)",
      },
      out: { type: "string", placeholder: "FILE", description: "write to FILE, not stdout" },
      bots: {
        type: "string",
        values: BOTS_VALUES,
        description: "count bot rows or not (default: analytics.bots)",
      },
    },
    async run(ctx, config, host) {
      const json = ctx.out.mode === "json";
      const request = parseExportRequest(ctx.flags, {
        includeBotsByDefault: botsIncludedByDefault(config.bots),
        json,
      });
      const { from, to } = request.range;
      ctx.out.step(
        `Attaching ${config.tableBucket}/${config.namespace}.${config.table} ` +
          `(${ANALYTICS_REGION}) with DuckDB…`,
      );
      using source = await open(ctx, config, host);
      ctx.out.step(`Running ${request.query} for ${from} to ${to}…`);
      const { text, rows } = await exportQuery(source, request);
      if (request.out === undefined) {
        // `line` adds "\n": the text's own last "\n" is left to it, so CSV keeps its CRLF.
        if (!json) ctx.out.line(text.slice(0, -1));
        else ctx.out.data(JSON.parse(text));
        return 0;
      }
      const path = isAbsolute(request.out) ? request.out : join(ctx.cwd, request.out);
      await ctx.files.writeTextFile(path, text);
      if (json) ctx.out.data({ query: request.query, from, to, file: path, rows });
      else ctx.out.step(`Wrote ${rows} rows of ${request.query} (${from} to ${to}) to ${path}`);
      return 0;
    },
  };
}

/** The `analytics export` command. */
export const exportCommand: PluginCommand<AnalyticsConfig> = exportCommandWith(
  (ctx, config, host) => openSiteTable(host, config, ctx.environ),
);
