/**
 * `deploy bootstrap [env]`: creates or updates the AWS resources around the site (bucket, log
 * groups, OAC, certificate, distribution, bucket policy, deploy role) and records them in
 * `state/<env>.json`. Safe to re-run: a second run changes nothing and says so.
 *
 * @module
 */
import { bootstrapCommandFor } from "../config/env_name.ts";
import type { Command, CommandContext } from "../command.ts";
import { recordedValidation } from "../infra/nodes/certificate.ts";
import type { S3Client } from "@aws-sdk/client-s3";
import { parseJsonc } from "@org/shared";
import { reconcileLine, validationTable } from "../infra/node_lines.ts";
import { reconcile } from "../infra/reconcile.ts";
import { siteDenoJson } from "../plugin/site_deno_json.ts";
import { installedPlugins } from "../plugin/site_imports.ts";
import { openSite } from "../site/open_site.ts";
import { scopedStateKey } from "../state/bucket_layout.ts";
import { scopedStateNamespaces } from "../state/scoped_state.ts";
import { refusePreviewEnv } from "../config/env_name.ts";

/** The `bootstrap` command. */
export const bootstrapCommand: Command = {
  name: "bootstrap",
  summary: "create or update the AWS resources around the site",
  help: "Creates what is missing and fixes what drifted, in dependency order: the bucket\n" +
    "<env>-<siteName>-<accountId>, the builder and CDN log groups, the origin access control,\n" +
    "the certificate (with `domain`; its DNS validation records are printed), the CloudFront\n" +
    "distribution, the bucket policy, the MicroVM builder's managed base image (looked up;\n" +
    "DEPLOY_BUILDER_BASE_IMAGE overrides) and role <env>-<siteName>-builder, and with\n" +
    "`githubRepo` the OIDC provider and the role\n" +
    "<env>-<siteName>-gh. Records everything in s3://<bucket>/state/<env>.json after every step.\n" +
    "Re-running changes nothing when all is in place; a run that stopped part-way resumes.",
  async run(ctx) {
    refusePreviewEnv(ctx, "bootstrap");
    using aws = await openSite(ctx, { aws: true });
    const { facts } = aws;
    const previous = await aws.state();
    if (ctx.out.mode !== "json") {
      ctx.out.line(`Bootstrapping ${facts.env} (${facts.bucket}, ${facts.config.region}):`);
    }
    const result = await reconcile(
      aws.graphRun(previous),
      (r) => ctx.out.mode === "json" ? undefined : ctx.out.line(reconcileLine(ctx.out.paint, r)),
    );
    const cert = result.nodes.find((n) => n.id === "certificate");
    const distribution = result.nodes.find((n) => n.id === "distribution")?.outputs;
    const certStatus = typeof cert?.outputs.status === "string" ? cert.outputs.status : undefined;
    const pending = cert !== undefined && certStatus !== "ISSUED";
    const cdnDomain = typeof distribution?.domainName === "string" ? distribution.domainName : "";
    const plugins = await pluginsWithState(ctx, aws.clients.s3, facts.bucket, facts.env);
    const url = facts.config.domain !== undefined && !pending
      ? `https://${facts.config.domain}`
      : `https://${cdnDomain}`;
    if (ctx.out.mode === "json") {
      ctx.out.data({
        env: facts.env,
        bucket: facts.bucket,
        changed: result.changed,
        url,
        nodes: result.nodes,
        ...(cert
          ? {
            certificate: {
              arn: cert.outputs.arn,
              status: certStatus,
              validation: recordedValidation(cert.outputs),
            },
          }
          : {}),
        state: result.state,
        plugins,
      });
      return 0;
    }
    if (pending) {
      ctx.out.line();
      ctx.out.line(
        `Certificate for ${facts.config.domain} is ${certStatus}: create these DNS records:`,
      );
      for (const line of validationTable(recordedValidation(cert.outputs))) ctx.out.line(line);
      ctx.out.warn(
        `the site is served from ${cdnDomain} until the certificate is issued; run ` +
          `\`${bootstrapCommandFor(facts.env)}\` again then to attach ${facts.config.domain}`,
      );
    }
    ctx.out.line();
    const count = (a: string) => result.nodes.filter((n) => n.action === a).length;
    if (!result.changed) {
      ctx.out.line(
        count("adopted") > 0
          ? `No changes to AWS resources; ${
            count("adopted")
          } existing resource(s) adopted into the state.`
          : "No changes: every resource is up to date.",
      );
    } else {
      ctx.out.line(
        `Bootstrap complete: ${count("created")} created, ${count("updated")} updated, ` +
          `${count("adopted")} adopted, ${count("unchanged")} unchanged.`,
      );
    }
    ctx.out.line(`Site: ${url}`);
    for (const p of plugins) {
      ctx.out.line(
        `Plugin ${p.name} has resources of its own (${p.state}): ` +
          `\`deploy ${p.name} status ${facts.env}\` checks them.`,
      );
    }
    return 0;
  },
};

/**
 * The installed plugins (by the site's deno.json: no plugin is loaded) that have a scoped state
 * for this environment, for bootstrap to mention.
 */
async function pluginsWithState(
  ctx: CommandContext,
  s3: S3Client,
  bucket: string,
  env: string,
): Promise<{ name: string; state: string }[]> {
  const { text, path } = await siteDenoJson(ctx.repoDir, ctx.files);
  if (text === null) return [];
  const installed = installedPlugins(parseJsonc(text, path)).map((p) => p.name);
  if (installed.length === 0) return [];
  const withState = await scopedStateNamespaces(s3, bucket, env);
  return installed.filter((name) => withState.includes(name))
    .map((name) => ({ name, state: `s3://${bucket}/${scopedStateKey(env, name)}` }));
}
