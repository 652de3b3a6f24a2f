/**
 * The ACM certificate for the custom domain (us-east-1, DNS-validated), requested only when a
 * domain is set. Its validation CNAMEs are recorded in the outputs for `bootstrap` to print;
 * the distribution takes the certificate only once it is `ISSUED`.
 *
 * @module
 */
import {
  type ACMClient,
  type CertificateDetail,
  DeleteCertificateCommand,
  DescribeCertificateCommand,
  ListTagsForCertificateCommand,
  paginateListCertificates,
  RequestCertificateCommand,
} from "@aws-sdk/client-acm";
import { createHash } from "node:crypto";
import type { JsonValue, NodeOutputs } from "../../state/env_state.ts";
import { aws, awsMaybe } from "../../aws/errors.ts";
import { tagDrift, tagList, tagMap } from "../../aws/tags.ts";
import type { LiveResource, NodeContext, ResourceNode, SiteFacts } from "../resource.ts";
import { previewWildcard } from "../../config/names.ts";
import { allItems } from "../../aws/pages.ts";

/** A DNS record the user must create for ACM to issue the certificate. */
export interface ValidationRecord {
  /** The domain it validates. */
  domain: string;
  /** Record name. */
  name: string;
  /** Record type (`CNAME`). */
  type: string;
  /** Record value. */
  value: string;
}

/**
 * The domain the certificate is for (pure): the custom domain, or for the preview stack the
 * wildcard `*.<preview domain>` every preview host falls under.
 *
 * @param facts the site
 * @returns the domain, or `undefined` without one
 */
export function certificateDomain(facts: SiteFacts): string | undefined {
  return facts.preview ? previewWildcard(facts.preview.domain) : facts.config.domain;
}

/** Certificate statuses after which a new certificate is needed. */
const DEAD = ["FAILED", "EXPIRED", "REVOKED", "VALIDATION_TIMED_OUT", "INACTIVE"];

/**
 * The idempotency token for the certificate request (pure): stable per bucket and domain, so
 * a retried request within ACM's window returns the same certificate.
 *
 * @param bucket the site bucket
 * @param domain the domain
 * @param generation bumped to request a replacement
 * @returns at most 32 word characters
 */
export function certificateToken(bucket: string, domain: string, generation = 0): string {
  return createHash("sha256").update(`${bucket}\n${domain}\n${generation}`).digest("hex").slice(
    0,
    32,
  );
}

/**
 * The validation CNAMEs of a described certificate (pure).
 *
 * @param detail ACM's description
 * @returns one record per domain that has one (deduplicated)
 */
export function validationRecords(detail: CertificateDetail): ValidationRecord[] {
  const seen = new Set<string>();
  const out: ValidationRecord[] = [];
  for (const o of detail.DomainValidationOptions ?? []) {
    const r = o.ResourceRecord;
    if (!r?.Name || !r.Value || seen.has(r.Name)) continue;
    seen.add(r.Name);
    out.push({ domain: o.DomainName ?? "", name: r.Name, type: r.Type ?? "CNAME", value: r.Value });
  }
  return out;
}

/**
 * The validation records recorded in a certificate node's outputs.
 *
 * @param outputs the node's outputs
 * @returns the records (empty when none)
 */
export function recordedValidation(outputs: NodeOutputs | undefined): ValidationRecord[] {
  const v = outputs?.validation;
  if (!Array.isArray(v)) return [];
  return v.flatMap((r) => {
    const o = r as Record<string, JsonValue>;
    return typeof o?.name === "string" && typeof o.value === "string"
      ? [{
        domain: String(o.domain ?? ""),
        name: o.name,
        type: String(o.type ?? "CNAME"),
        value: o.value,
      }]
      : [];
  });
}

function outputsOf(detail: CertificateDetail): NodeOutputs {
  return {
    arn: detail.CertificateArn ?? "",
    domain: detail.DomainName ?? "",
    status: detail.Status ?? "UNKNOWN",
    validation: validationRecords(detail).map((r) => ({ ...r })),
  };
}

async function describe(acm: ACMClient, arn: string): Promise<CertificateDetail | undefined> {
  const out = await awsMaybe(
    { resource: `certificate ${arn}`, action: "acm:DescribeCertificate" },
    () => acm.send(new DescribeCertificateCommand({ CertificateArn: arn })),
  );
  return out?.Certificate;
}

/** Finds a live certificate for this site's domain tagged for this app and environment. */
async function findTagged(
  acm: ACMClient,
  facts: SiteFacts,
  domain: string,
): Promise<string | undefined> {
  const candidates = await aws({
    resource: `certificate for ${domain}`,
    action: "acm:ListCertificates",
  }, () => {
    const pages = paginateListCertificates({ client: acm }, {
      CertificateStatuses: ["PENDING_VALIDATION", "ISSUED"],
    });
    return allItems(pages, (page) => page.CertificateSummaryList);
  });
  for (const c of candidates) {
    if (c.DomainName !== domain || !c.CertificateArn) continue;
    const tags = await aws({
      resource: `certificate ${c.CertificateArn}`,
      action: "acm:ListTagsForCertificate",
    }, () => acm.send(new ListTagsForCertificateCommand({ CertificateArn: c.CertificateArn })));
    if (tagDrift(tagMap(tags.Tags), facts.tags).length === 0) return c.CertificateArn;
  }
  return undefined;
}

async function request(ctx: NodeContext, generation: number): Promise<NodeOutputs> {
  const domain = certificateDomain(ctx.facts)!;
  const { acm } = ctx.clients;
  const out = await aws(
    { resource: `certificate for ${domain}`, action: "acm:RequestCertificate" },
    () =>
      acm.send(
        new RequestCertificateCommand({
          DomainName: domain,
          ValidationMethod: "DNS",
          IdempotencyToken: certificateToken(ctx.facts.bucket, domain, generation),
          Tags: tagList(ctx.facts.tags),
        }),
      ),
  );
  const arn = out.CertificateArn!;
  // ACM needs a moment before it has the validation records to show.
  let detail: CertificateDetail | undefined;
  for (let attempt = 0; attempt < 10; attempt++) {
    detail = await describe(acm, arn);
    if (detail && (detail.Status === "ISSUED" || validationRecords(detail).length > 0)) break;
    await ctx.sleep(2000);
  }
  return detail ? outputsOf(detail) : { arn, domain, status: "PENDING_VALIDATION", validation: [] };
}

/** The certificate node. */
export const certificateNode: ResourceNode = {
  id: "certificate",
  dependsOn: [],
  wanted: (facts) => certificateDomain(facts) !== undefined,
  label: (facts) => `certificate for ${certificateDomain(facts) ?? "(no domain)"}`,
  async read(ctx): Promise<LiveResource | null> {
    const domain = certificateDomain(ctx.facts);
    if (domain === undefined) {
      // Not wanted any more (destroy still tears a recorded one down).
      const arn = ctx.recorded?.arn;
      const detail = typeof arn === "string" ? await describe(ctx.clients.acm, arn) : undefined;
      return detail ? { outputs: outputsOf(detail), drift: [] } : null;
    }
    const recorded = ctx.recorded?.arn;
    let detail = typeof recorded === "string" && ctx.recorded?.domain === domain
      ? await describe(ctx.clients.acm, recorded)
      : undefined;
    if (!detail) {
      const arn = await findTagged(ctx.clients.acm, ctx.facts, domain);
      detail = arn ? await describe(ctx.clients.acm, arn) : undefined;
    }
    if (!detail) return null;
    const status = detail.Status ?? "UNKNOWN";
    return {
      outputs: { ...outputsOf(detail), generation: Number(ctx.recorded?.generation ?? 0) },
      drift: DEAD.includes(status) ? [`status ${status}: a new certificate is needed`] : [],
    };
  },
  create: (ctx) => request(ctx, Number(ctx.recorded?.generation ?? 0)),
  async update(ctx, live) {
    const generation = Number(live.outputs.generation ?? 0) + 1;
    return { ...(await request(ctx, generation)), generation };
  },
  async delete(ctx, live) {
    const arn = String(live.outputs.arn);
    await awsMaybe(
      { resource: `certificate ${arn}`, action: "acm:DeleteCertificate" },
      () => ctx.clients.acm.send(new DeleteCertificateCommand({ CertificateArn: arn })),
    );
  },
};
