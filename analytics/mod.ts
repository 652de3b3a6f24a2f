/**
 * @module
 * `@org/deploy-analytics`: the analytics plugin of the deploy CLI. CloudFront access logs
 * become rows of an Iceberg table in the site owner's S3 Tables (us-east-1), with no IP stored.
 * Installed in a site with `deploy plugin add analytics`; its commands are
 * `deploy analytics bootstrap|status|destroy|dashboard|backfill|export|digest [env]`. See docs/analytics.md.
 *
 * @example
 * ```ts
 * import plugin from "@org/deploy-analytics";
 * plugin.namespace; // "analytics"
 * ```
 */
import type { DeployPlugin } from "@org/deploy/plugin";
import { backfillCommand } from "./commands/backfill.ts";
import { bootstrapCommand } from "./commands/bootstrap.ts";
import { dashboardCommand } from "./commands/dashboard.ts";
import { destroyCommand } from "./commands/destroy.ts";
import { digestCommand } from "./commands/digest.ts";
import { exportCommand } from "./commands/export.ts";
import { statusCommand } from "./commands/status.ts";
import type { AnalyticsClients, AnalyticsFacts, AnalyticsNodeId } from "./pipeline/facts.ts";
import { ANALYTICS_GRAPH } from "./pipeline/graph.ts";
import { ANALYTICS_NAMESPACE, ANALYTICS_SECTION, type AnalyticsConfig } from "./section.ts";

/** The analytics plugin. */
const plugin: DeployPlugin<AnalyticsConfig, AnalyticsFacts, AnalyticsClients, AnalyticsNodeId> = {
  ...ANALYTICS_SECTION,
  commands: [
    bootstrapCommand,
    statusCommand,
    destroyCommand,
    dashboardCommand,
    backfillCommand,
    exportCommand,
    digestCommand,
  ],
  nodes: ANALYTICS_GRAPH,
};

export default plugin;
export { ANALYTICS_GRAPH, ANALYTICS_NAMESPACE };
export { transformPackage } from "./transform/lambda_package.ts";
export { ROW_COLUMNS } from "./transform/row.ts";
export type { PageViewRow } from "./transform/row.ts";
