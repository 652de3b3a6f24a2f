/**
 * `deploy analytics dashboard [env]`: the local dashboard. Serves the page and its JSON API on
 * `127.0.0.1:<analytics.dashboard.port>` only, prints the URL, and attaches the site's Iceberg
 * table (us-east-1) through DuckDB beside it. When the engine cannot run here (DuckDB, an
 * extension, credentials or the table unavailable) the page still opens and shows why in
 * place of the numbers; reloading it tries again. It stops only for a taken port, Ctrl-C or
 * SIGTERM, which stop the server (freeing the port) and close DuckDB.
 *
 * @module
 */
import type { DeployError, PluginCommand } from "@org/deploy/plugin";
import { createDashboardEngine } from "../dashboard/engine.ts";
import { createDashboardHandler } from "../dashboard/handler.ts";
import { nextStopSignal, serveDashboard } from "../dashboard/serve.ts";
import { runNamedQuery } from "../queries/named_queries.ts";
import { botsIncludedByDefault } from "../queries/range.ts";
import { createScanSharing } from "../queries/shared_scan.ts";
import { openSiteTable } from "../queries/site_source.ts";
import { ROLLUP_START_DAYS, rollUpRecentDays } from "../queries/rollup.ts";
import { rollupPath, withRollup } from "../queries/site_rollup.ts";
import { ANALYTICS_REGION } from "../pipeline/names.ts";
import type { AnalyticsConfig } from "../section.ts";

/** The `analytics dashboard` command. */
export const dashboardCommand: PluginCommand<AnalyticsConfig> = {
  name: "dashboard",
  summary: "open the local analytics dashboard (127.0.0.1:<dashboard.port>)",
  help: "Queries the site's page-view table in S3 Tables (us-east-1) with DuckDB on this\n" +
    "machine and serves a dashboard on 127.0.0.1:<analytics.dashboard.port> (default 4317)\n" +
    "only. Open the printed URL; Ctrl-C stops it. Needs DuckDB's httpfs, aws, avro and\n" +
    "iceberg extensions (downloaded by DuckDB on first use) and Deno's --allow-ffi for the\n" +
    "addon; without them the page opens and says what is missing.",
  async run(ctx, config, host) {
    const loaded = await ctx.site();
    using engine = createDashboardEngine(async () => {
      const source = await openSiteTable(host, config, ctx.environ);
      const path = rollupPath(ctx.environ, config);
      try {
        return await withRollup(
          source,
          path,
          () => ctx.clock.now(),
          (d) => ctx.files.mkdir(d),
          (line) => ctx.out.warn(line),
        );
      } catch (err) {
        // Another dashboard of the same table holds the file's lock, or it cannot be written:
        // the answers are the same without it, only slower.
        ctx.out.warn(
          `the roll-up ${path} could not be attached, so every day is read from the table: ` +
            (err instanceof Error ? err.message : String(err)),
        );
        return source;
      }
    });
    // The page asks for all its panels at once: queries reading the same scan share one run.
    const scans = createScanSharing();
    await using server = serveDashboard(config.dashboard.port, (port) =>
      createDashboardHandler({
        port,
        runQuery: async (name, range) =>
          runNamedQuery(await engine.source(), name, range, { scans }),
        includeBotsByDefault: botsIncludedByDefault(config.bots),
        site: { siteName: loaded.config.siteName, env: loaded.env },
        clock: ctx.clock,
        log: ctx.log,
      }));
    ctx.out.step(
      `Attaching ${config.tableBucket}/${config.namespace}.${config.table} ` +
        `(${ANALYTICS_REGION}) with DuckDB…`,
    );
    // engine.source() rejects only with a DeployError (engine.ts).
    const problem = await engine.source().then(() => null, (err: DeployError) => err);
    if (ctx.out.mode === "json") {
      ctx.out.data({
        env: loaded.env,
        url: server.url,
        engine: problem ? { ok: false, error: problem.toJSON() } : { ok: true },
      });
    } else {
      if (problem) {
        ctx.out.warn(
          `the page is served, but its queries cannot run: ${problem.message}` +
            (problem.hint ? `\n  ${problem.hint}` : ""),
        );
      }
      ctx.out.line(`Dashboard of ${loaded.env}: ${server.url}  (Ctrl-C stops it)`);
    }
    // Closed days are rolled up in the background, newest first; a query meanwhile waits for
    // the day being rolled up, not for all of them.
    let stopping = false;
    const rollup = problem ? undefined : (await engine.source()).rollup;
    const rolling = rollup
      ? rollUpRecentDays(rollup, ctx.clock.now(), ROLLUP_START_DAYS, () => stopping).then(
        (days) => {
          if (days.length > 0) ctx.out.step(`Rolled up ${days.length} closed day(s)`);
        },
        (err: unknown) =>
          ctx.out.warn(
            `rolling up closed days failed; they are read from the table: ${
              err instanceof Error ? err.message : String(err)
            }`,
          ),
      )
      : Promise.resolve();
    const signal = await nextStopSignal(ctx.signal);
    ctx.out.step(`${signal === "abort" ? "interrupted" : signal}: stopping the dashboard`);
    stopping = true;
    await rolling;
    return 0;
  },
};
