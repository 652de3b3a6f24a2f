/**
 * `deploy preview bootstrap`: the shared preview stack on the same resource graph as an
 * environment (bucket, log groups, OAC, the router function, the wildcard certificate, the
 * preview distribution, bucket policy, builder, OIDC provider and `preview-<siteName>-gh`),
 * plus DNS: with a Route 53 zone enclosing the preview domain the validation and `*.<domain>`
 * records are written there; without one they are printed and the run ends with exit code
 * {@linkcode DNS_PENDING_EXIT} until the certificate is issued.
 *
 * @module
 */
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { previewAuth, readPreviewPassword } from "../../preview/auth.ts";
import { Route53Client } from "@aws-sdk/client-route-53";
import type { CommandContext } from "../../command.ts";
import { CDN_REGION, PREVIEW_ENV, previewWildcard } from "../../config/names.ts";
import { recordedValidation } from "../../infra/nodes/certificate.ts";
import { reconcile } from "../../infra/reconcile.ts";
import { manualRecords } from "../../dns/dns_records.ts";
import { requirePreviewConfig } from "../../preview/open_preview.ts";
import { findEnclosingZone } from "../../dns/route53_zone.ts";
import { openSite } from "../../site/open_site.ts";
import { reconcileLine, validationTable } from "../../infra/node_lines.ts";

/**
 * The exit code of a preview bootstrap that did all it could but needs DNS records created at
 * another provider: `EX_TEMPFAIL` (sysexits.h), "try again later". Nothing failed.
 */
export const DNS_PENDING_EXIT = 75;

/**
 * Runs `deploy preview bootstrap`.
 *
 * @param ctx the command context
 * @returns the exit code
 */
export async function previewBootstrap(ctx: CommandContext): Promise<number> {
  using site = await openSite(ctx, { aws: true });
  const previous = await site.state();
  const domain = requirePreviewConfig(site.site);
  const zone = await findEnclosingZone(
    site.clients.client(Route53Client, "ROUTE_53", CDN_REGION),
    domain,
  ) ?? null;
  const password = site.config.previews.password;
  const auth = password === undefined ? null : previewAuth(
    await readPreviewPassword(
      password,
      ctx.environ,
      () => site.clients.client(SecretsManagerClient, "SECRETS_MANAGER"),
    ),
    site.facts.bucket,
  );
  const facts = { ...site.facts, preview: { domain, zone, auth } };
  const json = ctx.out.mode === "json";
  if (!json) {
    ctx.out.line(`Bootstrapping the preview stack (${facts.bucket}, ${facts.config.region}):`);
    ctx.out.line(
      zone
        ? `  DNS: Route 53 zone ${zone.name} serves ${domain}`
        : `  DNS: no Route 53 zone encloses ${domain}; the records to create are printed below`,
    );
  }
  const result = await reconcile(
    { ...site.graphRun(previous), facts },
    (r) => json ? undefined : ctx.out.line(reconcileLine(ctx.out.paint, r)),
  );
  const outputs = (id: string) => result.nodes.find((n) => n.id === id)?.outputs;
  const cert = outputs("certificate");
  const status = String(outputs("certificateValidation")?.status ?? cert?.status ?? "UNKNOWN");
  const distributionDomain = outputs("distribution")?.domainName;
  const records = zone ? [] : manualRecords({
    domain,
    validation: recordedValidation(cert),
    ...(typeof distributionDomain === "string" ? { distributionDomain } : {}),
  });
  const issued = status === "ISSUED";
  const role = outputs("deployRole")?.arn;
  const code = issued ? 0 : DNS_PENDING_EXIT;
  if (json) {
    ctx.out.data({
      env: PREVIEW_ENV,
      bucket: facts.bucket,
      domain,
      changed: result.changed,
      zone: zone?.name ?? null,
      certificate: { arn: cert?.arn ?? null, domain: previewWildcard(domain), status },
      records,
      role: typeof role === "string" ? role : null,
      nodes: result.nodes,
      state: result.state,
    });
    return code;
  }
  ctx.out.line();
  if (records.length > 0) {
    ctx.out.line(
      issued
        ? "These DNS records must stay at your DNS provider:"
        : "Create these DNS records at your DNS provider:",
    );
    for (const line of validationTable(records)) ctx.out.line(line);
  }
  if (typeof role === "string") ctx.out.line(`Preview deploy role: ${role}`);
  if (!issued) {
    ctx.out.line(
      `The certificate for ${previewWildcard(domain)} is ${status}: ` +
        (zone
          ? "ACM has not issued it yet; re-run `deploy preview bootstrap` in a few minutes"
          : "re-run `deploy preview bootstrap` once these DNS records are in place"),
    );
    return code;
  }
  ctx.out.line(
    result.changed
      ? "Preview stack ready."
      : "No changes: every resource of the preview stack is up to date.",
  );
  ctx.out.line(`Previews: https://<id>.${domain}`);
  return 0;
}
