/**
 * `deploy analytics status [env]`: every pipeline resource read live (present, missing,
 * drifted or error), the Firehose stream's state, the table's schema version (its Iceberg
 * schema id, and whether it has every column the transform writes), and the table's row count
 * (through DuckDB; when it cannot run here, status says why).
 *
 * @module
 */
import {
  type NodeReport,
  type PluginCommand,
  scopedStateKey,
  statusLine,
} from "@org/deploy/plugin";
import type { AnalyticsNodeId } from "../pipeline/facts.ts";
import { ANALYTICS_REGION } from "../pipeline/names.ts";
import { pipelineRunFor } from "../pipeline/open.ts";
import { inspectPipeline } from "../pipeline/run.ts";
import { utcDay } from "../queries/range.ts";
import { openSiteSource } from "../queries/site_source.ts";
import { tableRowCount } from "../queries/table_rows.ts";
import { ANALYTICS_NAMESPACE, type AnalyticsConfig } from "../section.ts";

/** The `analytics status` command. */
export const statusCommand: PluginCommand<AnalyticsConfig> = {
  name: "status",
  summary: "show each analytics resource: present, missing or drifted",
  help: "Reads every resource of the pipeline live (all in us-east-1) and compares it with what\n" +
    "bootstrap would create: present, missing, drifted (with the differences) or error. Shows\n" +
    "the Firehose stream's state and the table's schema version (current, or which columns a\n" +
    "bootstrap would add). Exit code 0 whatever the findings; --json for scripts.",
  async run(ctx, config, host) {
    using site = await host.openSite();
    const run = pipelineRunFor(ctx, site, config);
    const { state, stateError, reports } = await inspectPipeline(run);
    const stream = reports.find((r) => r.id === "stream");
    const streamState = typeof stream?.live?.status === "string" ? stream.live.status : null;
    const schema = tableSchema(reports);
    const key = scopedStateKey(site.env, ANALYTICS_NAMESPACE);
    // Status never downloads DuckDB extensions; the dashboard does on first use.
    const rows = await tableRowCount(
      () => openSiteSource(site, config, ctx.environ, { download: false }),
      utcDay(ctx.clock.now()),
    );
    if (ctx.out.mode === "json") {
      ctx.out.data({
        env: site.env,
        region: ANALYTICS_REGION,
        state: state === null ? null : { key, updatedAt: state.updatedAt },
        ...(stateError ? { stateError } : {}),
        ok: reports.every((r) => r.status === "present"),
        stream: { status: streamState },
        schema,
        rows,
        nodes: reports,
      });
      return 0;
    }
    ctx.out.line(`Analytics status of ${site.env} (${ANALYTICS_REGION}):`);
    ctx.out.line(
      state
        ? `  state     s3://${site.bucket}/${key} (updated ${state.updatedAt})`
        : `  state     ${stateError ?? `missing: run \`deploy analytics bootstrap ${site.env}\``}`,
    );
    for (const r of reports) ctx.out.line(statusLine(ctx.out.paint, r));
    ctx.out.line();
    ctx.out.line(`Stream: ${streamState ?? "does not exist"}`);
    ctx.out.line(
      `Schema: ${
        schema === null
          ? "unknown (the table could not be read)"
          : schema.current
          ? `${schema.id} (current)`
          : `${schema.id} (columns missing: run \`deploy analytics bootstrap ${site.env}\` to add them)`
      }`,
    );
    ctx.out.line(`Rows: ${rows.count === null ? rows.note : rows.count}`);
    return 0;
  },
};

/**
 * The table's schema version as the table node read it (pure): its Iceberg schema id and
 * whether it holds every column the transform writes; null when the table was not read.
 */
function tableSchema(
  reports: readonly NodeReport<AnalyticsNodeId>[],
): { id: number; current: boolean } | null {
  const live = reports.find((r) => r.id === "table")?.live;
  return typeof live?.schemaId === "number" && typeof live.schemaCurrent === "boolean"
    ? { id: live.schemaId, current: live.schemaCurrent }
    : null;
}
