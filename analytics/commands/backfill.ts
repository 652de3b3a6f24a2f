/**
 * `deploy analytics backfill [env]`: loads the days before the pipeline existed from the
 * site's CloudFront log group (`/<siteName>/<env>/cloudfront`, us-east-1) into the table, at
 * most `retention.cloudfrontDays` whole UTC days before the analytics delivery was created,
 * through the pipeline's own transform and salt. Days that already have rows are skipped, so
 * it is idempotent and resumes after an interruption.
 *
 * @module
 */
import { DeployError, type PluginCommand } from "@org/deploy/plugin";
import { backfillDays } from "../backfill/days.ts";
import { dayLogMessages } from "../backfill/log_events.ts";
import { backfillProgress } from "../backfill/progress.ts";
import { runBackfill } from "../backfill/run.ts";
import { readSaltSecret } from "../backfill/salt_secret.ts";
import { ANALYTICS_REGION } from "../pipeline/names.ts";
import { loadTableMetadata } from "../pipeline/nodes/table.ts";
import { pipelineRunFor } from "../pipeline/open.ts";
import { readPipelineState } from "../pipeline/run.ts";
import { schemaStatus } from "../pipeline/table_schema.ts";
import { openSiteSource } from "../queries/site_source.ts";
import type { AnalyticsConfig } from "../section.ts";

/** The `analytics backfill` command. */
export const backfillCommand: PluginCommand<AnalyticsConfig> = {
  name: "backfill",
  summary: "load the days before the pipeline existed from the CloudFront log group",
  help: "Reads the site's CloudFront log group /<siteName>/<env>/cloudfront (us-east-1) for the\n" +
    "whole UTC days before the analytics delivery was created, at most\n" +
    "retention.cloudfrontDays of them, maps each record with the pipeline's transform and\n" +
    "salt, and inserts each day in one commit. Days with rows are skipped: re-running is safe\n" +
    "and resumes after an interruption. Prints inserted/skipped per day.",
  async run(ctx, config, host) {
    const loaded = await ctx.site();
    using site = await host.openSite();
    const run = pipelineRunFor(ctx, site, config);
    const state = await readPipelineState(run);
    const delivery = state?.nodes.logDelivery;
    if (!state || !delivery) {
      throw new DeployError(
        "state_missing",
        `the analytics pipeline of ${site.env} has no log delivery yet, so there is nothing ` +
          "to backfill before",
        { hint: `run \`deploy analytics bootstrap ${site.env}\` first` },
      );
    }
    // The backfill writes every column: a table an older release made must be evolved first.
    const { missing } = schemaStatus(await loadTableMetadata(run));
    if (missing.length > 0) {
      throw new DeployError(
        "state_missing",
        `the table ${run.facts.names.namespace}.${run.facts.names.table} lacks the column(s) ` +
          `${missing.join(", ")} that this release writes`,
        {
          hint:
            `run \`deploy analytics bootstrap ${site.env}\` first: it adds them, rewriting no data`,
        },
      );
    }
    // The delivery's record is written when bootstrap creates it: the pipeline's first day.
    const days = backfillDays(
      Date.parse(delivery.updatedAt),
      loaded.config.retention.cloudfrontDays,
    );
    const logGroup = loaded.names.cdnLogGroup;
    const json = ctx.out.mode === "json";
    if (!json) {
      ctx.out.line(
        `Backfilling ${site.env} from ${logGroup} (${ANALYTICS_REGION}): ${days[0]} to ` +
          `${days.at(-1)} (${days.length} days before the delivery was created)`,
      );
    }
    const secret = await readSaltSecret(run.clients.secrets, run.facts.names.saltSecret);
    using source = await openSiteSource(site, config, ctx.environ);
    const reports = await runBackfill(days, {
      source,
      secret,
      readMessages: (day) => dayLogMessages(run.clients.logs, logGroup, day),
      onDay(report, done, total) {
        if (json) return;
        ctx.out.progress("");
        ctx.out.line(
          report.result === "skipped"
            ? `  ${report.day}  skipped   (${report.rows} rows already)`
            : `  ${report.day}  inserted  ${report.rows} rows` +
              (report.unmapped > 0 ? ` (${report.unmapped} records could not be mapped)` : ""),
        );
        if (done < total) ctx.out.progress(backfillProgress(done, total));
      },
    });
    const inserted = reports.filter((r) => r.result === "inserted");
    const rows = inserted.reduce((n, r) => n + r.rows, 0);
    if (json) ctx.out.data({ env: site.env, logGroup, days: reports });
    else {
      ctx.out.line(
        `Done: ${rows} rows inserted over ${inserted.length} days, ` +
          `${reports.length - inserted.length} days skipped.`,
      );
    }
    return 0;
  },
};
