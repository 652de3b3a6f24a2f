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
import { type AwsSite, openSite } from "../../site/open_site.ts";
import type { NodeOutputs } from "../../state/env_state.ts";
import { reconcileLine, validationTable } from "../../infra/node_lines.ts";

/**
 * The exit code of a preview bootstrap that did all it could but needs DNS records created at
 * another provider: `EX_TEMPFAIL` (sysexits.h), "try again later". Nothing failed.
 */
export const DNS_PENDING_EXIT = 75;

/**
 * Runs `deploy preview bootstrap`: the preview facts (domain, zone, password check), the
 * reconcile of the stack, then what it found, as data or as lines.
 *
 * @param ctx the command context
 * @returns the exit code: 0, or {@linkcode DNS_PENDING_EXIT} while the certificate waits
 */
export async function previewBootstrap(ctx: CommandContext): Promise<number> {
  using site = await openSite(ctx, { aws: true });
  const previous = await site.state();
  const preview = await previewFacts(ctx, site);
  const facts = { ...site.facts, preview };
  const json = ctx.out.mode === "json";
  if (!json) {
    ctx.out.line(`Bootstrapping the preview stack (${facts.bucket}, ${facts.config.region}):`);
    ctx.out.line(
      preview.zone
        ? `  DNS: Route 53 zone ${preview.zone.name} serves ${preview.domain}`
        : `  DNS: no Route 53 zone encloses ${preview.domain}; the records to create are printed below`,
    );
  }
  const result = await reconcile(
    { ...site.graphRun(previous), facts },
    (r) => json ? undefined : ctx.out.line(reconcileLine(ctx.out.paint, r)),
  );
  const found = stackOutcome(preview, result.nodes);
  const code = found.issued ? 0 : DNS_PENDING_EXIT;
  if (json) {
    ctx.out.data({
      env: PREVIEW_ENV,
      bucket: facts.bucket,
      domain: preview.domain,
      changed: result.changed,
      zone: preview.zone?.name ?? null,
      certificate: {
        arn: found.cert?.arn ?? null,
        domain: previewWildcard(preview.domain),
        status: found.status,
      },
      records: found.records,
      role: found.role ?? null,
      nodes: result.nodes,
      state: result.state,
    });
    return code;
  }
  printOutcome(ctx, preview, found, result.changed);
  return code;
}

/** The preview base domain, the Route 53 zone enclosing it, and the password check. */
async function previewFacts(ctx: CommandContext, site: AwsSite) {
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
  return { domain, zone, auth };
}

type PreviewFacts = Awaited<ReturnType<typeof previewFacts>>;

/** What the reconcile left (pure): the certificate and its status, DNS records, the role. */
function stackOutcome(
  preview: PreviewFacts,
  nodes: readonly { readonly id: string; readonly outputs?: NodeOutputs }[],
) {
  const outputs = (id: string) => nodes.find((n) => n.id === id)?.outputs;
  const cert = outputs("certificate");
  const status = String(outputs("certificateValidation")?.status ?? cert?.status ?? "UNKNOWN");
  const distributionDomain = outputs("distribution")?.domainName;
  const records = preview.zone ? [] : manualRecords({
    domain: preview.domain,
    validation: recordedValidation(cert),
    ...(typeof distributionDomain === "string" ? { distributionDomain } : {}),
  });
  const role = outputs("deployRole")?.arn;
  return {
    cert,
    status,
    records,
    issued: status === "ISSUED",
    role: typeof role === "string" ? role : undefined,
  };
}

/** The lines after the reconcile: DNS records to create, the role, what is left to do. */
function printOutcome(
  ctx: CommandContext,
  preview: PreviewFacts,
  found: ReturnType<typeof stackOutcome>,
  changed: boolean,
): void {
  const { domain, zone } = preview;
  ctx.out.line();
  if (found.records.length > 0) {
    ctx.out.line(
      found.issued
        ? "These DNS records must stay at your DNS provider:"
        : "Create these DNS records at your DNS provider:",
    );
    for (const line of validationTable(found.records)) ctx.out.line(line);
  }
  if (found.role !== undefined) ctx.out.line(`Preview deploy role: ${found.role}`);
  if (!found.issued) {
    ctx.out.line(
      `The certificate for ${previewWildcard(domain)} is ${found.status}: ` +
        (zone
          ? "ACM has not issued it yet; re-run `deploy preview bootstrap` in a few minutes"
          : "re-run `deploy preview bootstrap` once these DNS records are in place"),
    );
    return;
  }
  ctx.out.line(
    changed
      ? "Preview stack ready."
      : "No changes: every resource of the preview stack is up to date.",
  );
  ctx.out.line(`Previews: https://<id>.${domain}`);
}
