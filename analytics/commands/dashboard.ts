/**
 * `deploy analytics dashboard [env]`: the local dashboard. Attaches the site's Iceberg table
 * (us-east-1) through DuckDB, serves the page and its JSON API on
 * `127.0.0.1:<analytics.dashboard.port>` only, prints the URL, and on Ctrl-C or SIGTERM stops
 * the server (freeing the port) and closes DuckDB.
 *
 * @module
 */
import type { PluginCommand } from "@org/deploy/plugin";
import { createDashboardHandler } from "../dashboard/handler.ts";
import { nextStopSignal, serveDashboard } from "../dashboard/serve.ts";
import { runNamedQuery } from "../queries/named_queries.ts";
import { botsIncludedByDefault } from "../queries/range.ts";
import { openSiteSource } from "../queries/site_source.ts";
import { ANALYTICS_REGION } from "../pipeline/names.ts";
import type { AnalyticsConfig } from "../section.ts";

/** The `analytics dashboard` command. */
export const dashboardCommand: PluginCommand<AnalyticsConfig> = {
  name: "dashboard",
  summary: "open the local analytics dashboard (127.0.0.1:<dashboard.port>)",
  help: "Queries the site's page-view table in S3 Tables (us-east-1) with DuckDB on this\n" +
    "machine and serves a dashboard on 127.0.0.1:<analytics.dashboard.port> (default 4317)\n" +
    "only. Open the printed URL; Ctrl-C stops it. Needs DuckDB's httpfs, aws and iceberg\n" +
    "extensions (downloaded by DuckDB on first use) and Deno's --allow-ffi for the addon.",
  async run(ctx, config, host) {
    using site = await host.openSite();
    ctx.out.step(
      `Attaching ${config.tableBucket}/${config.namespace}.${config.table} ` +
        `(${ANALYTICS_REGION}) with DuckDB…`,
    );
    using source = await openSiteSource(site, config);
    await using server = serveDashboard(config.dashboard.port, (port) =>
      createDashboardHandler({
        port,
        runQuery: (name, range) => runNamedQuery(source, name, range),
        includeBotsByDefault: botsIncludedByDefault(config.bots),
        site: { siteName: site.siteName, env: site.env },
        clock: ctx.clock,
        log: ctx.log,
      }));
    if (ctx.out.mode === "json") ctx.out.data({ env: site.env, url: server.url });
    else ctx.out.line(`Dashboard of ${site.env}: ${server.url}  (Ctrl-C stops it)`);
    const signal = await nextStopSignal();
    ctx.out.step(`${signal}: stopping the dashboard`);
    return 0;
  },
};
