/**
 * `deploy analytics destroy [env] --yes`: deletes the pipeline in reverse order (its delivery,
 * destination, stream, roles, log groups, error bucket, transform, and the table with its rows),
 * keeping the salt secret and the account-wide catalog, and saying so; then its state file.
 * The site's own log delivery and source stay.
 *
 * @module
 */
import { DeployError, type PluginCommand, teardownLine } from "@org/deploy/plugin";
import { ANALYTICS_REGION } from "../pipeline/names.ts";
import { pipelineRunFor } from "../pipeline/open.ts";
import { destroyPipeline } from "../pipeline/run.ts";
import type { AnalyticsConfig } from "../section.ts";

/** The `analytics destroy` command. */
export const destroyCommand: PluginCommand<AnalyticsConfig> = {
  name: "destroy",
  summary: "delete the analytics pipeline and its rows (needs --yes)",
  help:
    "Deletes, in reverse order, every pipeline resource in us-east-1, the table and its rows\n" +
    "included, then state/<env>.analytics.json. Keeps the salt secret (a new one would change\n" +
    "today's visitor keys) and the account-wide s3tablescatalog, and says so. The site's own\n" +
    "log delivery keeps working. Refuses without --yes. Safe to re-run after a failure.",
  async run(ctx, config, host) {
    if (!ctx.global.yes) {
      throw new DeployError(
        "confirmation_required",
        `\`deploy analytics destroy ${ctx.env}\` deletes the analytics pipeline of ${ctx.env}, ` +
          "including the table and every row",
        { hint: `run \`deploy analytics destroy ${ctx.env} --yes\` to confirm` },
      );
    }
    using site = await host.openSite();
    const run = pipelineRunFor(ctx, site, config);
    const json = ctx.out.mode === "json";
    if (!json) ctx.out.line(`Destroying analytics of ${site.env} (${ANALYTICS_REGION}):`);
    const results = await destroyPipeline(
      run,
      (r) => json ? undefined : ctx.out.line(teardownLine(ctx.out.paint, r)),
    );
    if (json) {
      ctx.out.data({ env: site.env, region: ANALYTICS_REGION, nodes: results });
      return 0;
    }
    const deleted = results.filter((r) => r.action === "deleted").length;
    const kept = results.filter((r) => r.action === "kept");
    ctx.out.line();
    ctx.out.line(
      deleted === 0
        ? "Nothing to destroy."
        : `Destroyed ${deleted} analytics resource(s) and the analytics state.`,
    );
    for (const k of kept) ctx.out.line(`Kept ${k.label}: ${k.reason}.`);
    return 0;
  },
};
