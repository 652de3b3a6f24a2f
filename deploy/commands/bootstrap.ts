/**
 * `deploy bootstrap [env]`: creates or updates the AWS resources around the site (bucket, log
 * groups, OAC, certificate, distribution, bucket policy, deploy role) and records them in
 * `state/<env>.json`. Safe to re-run: a second run changes nothing and says so.
 *
 * @module
 */
import type { Command, CommandContext } from "../cli/command.ts";
import { recordedValidation, type ValidationRecord } from "../infra/nodes/certificate.ts";
import { type NodeResult, reconcile } from "../infra/reconcile.ts";
import { openSite } from "../site/open_site.ts";
import { refusePreviewEnv } from "../preview/open_preview.ts";

/**
 * A table of DNS records to create (pure): the certificate's validation records, or the
 * preview stack's records for another DNS provider.
 *
 * @param records the records
 * @returns lines: a header, then one row per record, columns aligned
 */
export function validationTable(
  records: readonly Pick<ValidationRecord, "name" | "type" | "value">[],
): string[] {
  const rows = [["NAME", "TYPE", "VALUE"], ...records.map((r) => [r.name, r.type, r.value])];
  const width = (i: number) => Math.max(...rows.map((r) => r[i]!.length));
  return rows.map((r) => `  ${r[0]!.padEnd(width(0))}  ${r[1]!.padEnd(width(1))}  ${r[2]}`);
}

/**
 * Prints one node's bootstrap result: the action (coloured) and the resource, with what drifted.
 *
 * @param ctx the command context
 * @param r the node's result
 */
export function printNode(ctx: CommandContext, r: NodeResult): void {
  const { paint } = ctx.out;
  const action = r.action === "created"
    ? paint.green(r.action.padEnd(9))
    : r.action === "updated"
    ? paint.yellow(r.action.padEnd(9))
    : r.action === "adopted"
    ? paint.cyan(r.action.padEnd(9))
    : paint.dim(r.action.padEnd(9));
  ctx.out.line(`  ${action} ${r.label}${r.drift.length > 0 ? ` (${r.drift.join("; ")})` : ""}`);
}

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
    using aws = await openSite(ctx, { state: "optional" });
    const { facts, state: previous } = aws;
    if (ctx.out.mode !== "json") {
      ctx.out.line(`Bootstrapping ${facts.env} (${facts.bucket}, ${facts.config.region}):`);
    }
    const result = await reconcile(
      aws.graphRun(previous),
      (r) => ctx.out.mode === "json" ? undefined : printNode(ctx, r),
    );
    const cert = result.nodes.find((n) => n.id === "certificate");
    const distribution = result.nodes.find((n) => n.id === "distribution")?.outputs;
    const certStatus = typeof cert?.outputs.status === "string" ? cert.outputs.status : undefined;
    const pending = cert !== undefined && certStatus !== "ISSUED";
    const cdnDomain = typeof distribution?.domainName === "string" ? distribution.domainName : "";
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
          `\`deploy bootstrap ${facts.env}\` again then to attach ${facts.config.domain}`,
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
    return 0;
  },
};
