/**
 * `deploy analytics digest [env] --week [--format markdown|html|json] [--out FILE]`: last
 * week's summary against the week before (views, visitors, top pages, top referrers, new 404s,
 * downloads, feed subscribers), to stdout or a file, for a CI schedule to mail or post.
 *
 * @module
 */
import { isAbsolute, join } from "node:path";
import { DeployError, type PluginCommand } from "@org/deploy/plugin";
import {
  collectDigest,
  DIGEST_FORMATS,
  type DigestFormat,
  renderDigest,
} from "../digest/weekly_digest.ts";
import { botsIncludedByDefault } from "../queries/range.ts";
import { openSiteTable } from "../queries/site_source.ts";
import type { PageViewSource } from "../queries/source.ts";
import { ANALYTICS_REGION } from "../pipeline/names.ts";
import type { AnalyticsConfig } from "../section.ts";
import type { OpenExportTable } from "./export.ts";

/**
 * The `analytics digest` command over a table opener.
 *
 * @param open opens the table (default: the site's table in S3 Tables)
 * @returns the command
 */
export function digestCommandWith(open: OpenExportTable): PluginCommand<AnalyticsConfig> {
  return {
    name: "digest",
    summary: "write last week's summary against the week before (Markdown, HTML or JSON)",
    help: "Runs the dashboard's named queries on the site's page-view table (us-east-1) for\n" +
      "the last complete week (Monday to Sunday, UTC) and the week before, and writes page\n" +
      "views, unique visitors, downloads and feed subscribers with their change, the top\n" +
      "pages and referrers, new 404s and the most downloaded files. Markdown by default, an\n" +
      "HTML mail body, or JSON (default with --json). Stdout unless --out FILE. Bots count as\n" +
      "analytics.bots says. Needs DuckDB (Deno's --allow-ffi) and its extensions.",
    flags: {
      week: { type: "boolean", description: "last week against the week before (required)" },
      format: {
        type: "string",
        values: DIGEST_FORMATS,
        description: "markdown (default), html or json (default with --json)",
      },
      out: { type: "string", placeholder: "FILE", description: "write to FILE, not stdout" },
    },
    async run(ctx, config, host) {
      if (ctx.flags.week !== true) {
        throw new DeployError("usage", "digest needs a period: --week", {
          hint: `run \`deploy analytics digest ${ctx.env} --week\` (--format markdown|html|json)`,
        });
      }
      const json = ctx.out.mode === "json";
      const format =
        (typeof ctx.flags.format === "string"
          ? ctx.flags.format
          : json
          ? "json"
          : "markdown") as DigestFormat;
      const out = typeof ctx.flags.out === "string" ? ctx.flags.out : undefined;
      if (json && format !== "json" && out === undefined) {
        throw new DeployError("usage", `--json writes JSON on stdout, not ${format}`, {
          hint: `add --out FILE for ${format}, or drop --format`,
        });
      }
      const loaded = await ctx.site();
      ctx.out.step(
        `Attaching ${config.tableBucket}/${config.namespace}.${config.table} ` +
          `(${ANALYTICS_REGION}) with DuckDB…`,
      );
      using source: PageViewSource = await open(ctx, config, host);
      const digest = await collectDigest(
        source,
        { siteName: loaded.config.siteName, env: loaded.env },
        ctx.clock.now(),
        botsIncludedByDefault(config.bots),
      );
      const text = renderDigest(digest, format);
      if (out === undefined) {
        if (json) ctx.out.data(digest);
        else ctx.out.line(text.slice(0, -1));
        return 0;
      }
      const path = isAbsolute(out) ? out : join(ctx.cwd, out);
      await ctx.files.writeTextFile(path, text);
      if (json) ctx.out.data({ week: digest.week, format, file: path });
      else ctx.out.step(`Wrote the digest of ${digest.week.from} to ${digest.week.to} to ${path}`);
      return 0;
    },
  };
}

/** The `analytics digest` command. */
export const digestCommand: PluginCommand<AnalyticsConfig> = digestCommandWith(
  (ctx, config, host) => openSiteTable(host, config, ctx.environ),
);
