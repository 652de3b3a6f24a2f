/**
 * `deploy analytics bootstrap [env]`: creates or repairs the pipeline (all in us-east-1) and
 * records it in `state/<env>.analytics.json`. Refuses while the site is not bootstrapped: the
 * pipeline hangs off the site's CloudFront log source. Safe to re-run.
 *
 * @module
 */
import { DeployError, type PluginCommand, reconcileLine } from "@org/deploy/plugin";
import { ANALYTICS_REGION, nameProblems } from "../pipeline/names.ts";
import { pipelineRunFor } from "../pipeline/open.ts";
import { bootstrapPipeline } from "../pipeline/run.ts";
import type { AnalyticsConfig } from "../section.ts";

/** The `analytics bootstrap` command. */
export const bootstrapCommand: PluginCommand<AnalyticsConfig> = {
  name: "bootstrap",
  summary: "create or repair the analytics pipeline (us-east-1)",
  help: "Creates what is missing and fixes what drifted, all in us-east-1 (CloudFront delivers\n" +
    "logs to Firehose only there): the S3 table bucket, namespace and Iceberg table, the Glue\n" +
    "s3tablescatalog federation (adopted when present), the salt secret (created once), the\n" +
    "transform Lambda with its role and log group, the Firehose error bucket, the stream with\n" +
    "its role and log group, a log delivery destination for the stream and a delivery from the\n" +
    "site's CloudFront log source. Records everything in s3://<bucket>/state/<env>.analytics.json\n" +
    "after every step. Needs the site bootstrapped first. Re-running changes nothing when all is\n" +
    "in place.",
  async run(ctx, config, host) {
    using site = await host.openSite();
    if (!site.bootstrapped) {
      throw new DeployError(
        "state_missing",
        `environment "${site.env}" is not bootstrapped: the analytics pipeline hangs off the ` +
          "site's CloudFront logs",
        { hint: `run \`deploy bootstrap ${site.env}\` first` },
      );
    }
    const run = pipelineRunFor(ctx, site, config);
    const tooLong = nameProblems(run.facts.names);
    if (tooLong.length > 0) {
      throw new DeployError("config_invalid", "a derived analytics resource name is too long", {
        issues: tooLong.map((message) => ({ path: "siteName", message })),
        hint: "shorten siteName or the environment name",
      });
    }
    const json = ctx.out.mode === "json";
    if (!json) {
      ctx.out.line(
        `Bootstrapping analytics for ${site.env} (${ANALYTICS_REGION}; the site is in ${site.region}):`,
      );
    }
    const result = await bootstrapPipeline(
      run,
      (r) => json ? undefined : ctx.out.line(reconcileLine(ctx.out.paint, r)),
    );
    if (json) {
      ctx.out.data({
        env: site.env,
        region: ANALYTICS_REGION,
        changed: result.changed,
        nodes: result.nodes,
        state: result.state,
      });
      return 0;
    }
    const count = (a: string) => result.nodes.filter((n) => n.action === a).length;
    ctx.out.line();
    ctx.out.line(
      result.changed
        ? `Analytics bootstrap complete: ${count("created")} created, ${count("updated")} ` +
          `updated, ${count("adopted")} adopted, ${count("unchanged")} unchanged.`
        : count("adopted") > 0
        ? `No changes to AWS resources; ${
          count("adopted")
        } existing resource(s) adopted into the state.`
        : "No changes: every analytics resource is up to date.",
    );
    ctx.out.line(
      `Rows land in ${run.facts.names.tableBucket}/${run.facts.names.namespace}.` +
        `${run.facts.names.table} (${ANALYTICS_REGION}) within minutes of each request.`,
    );
    return 0;
  },
};
