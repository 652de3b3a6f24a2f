/**
 * The plugin's commands of the next release (`dashboard`, `backfill`): registered so help lists
 * them, they check the section like the real ones will and then answer `not_implemented`.
 *
 * @module
 */
import { type AnalyticsConfig, notImplemented, type PluginCommand } from "@org/deploy/plugin";

function planned(name: string, summary: string): PluginCommand<AnalyticsConfig> {
  return {
    name,
    summary,
    planned: true,
    run: () => Promise.reject(notImplemented(`analytics ${name}`)),
  };
}

/** `analytics dashboard` (next release). */
export const dashboardCommand: PluginCommand<AnalyticsConfig> = planned(
  "dashboard",
  "serve the dashboard on 127.0.0.1:analytics.dashboard.port",
);

/** `analytics backfill` (next release). */
export const backfillCommand: PluginCommand<AnalyticsConfig> = planned(
  "backfill",
  "load the days before the pipeline existed from the CloudFront log group",
);
