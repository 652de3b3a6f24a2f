/**
 * The preview stack's `*.<domain>` records, as a resource node: with a Route 53 zone enclosing
 * the preview domain, `A` and `AAAA` alias records to the distribution (replacing a CNAME at
 * that name in the same atomic change). Teardown deletes them only while they still point
 * where bootstrap pointed them.
 *
 * @module
 */
import type { NodeContext, ResourceNode } from "../resource.ts";
import { optionalOutput } from "./outputs.ts";
import type { NodeOutputs } from "../../state/env_state.ts";
import { canonicalDnsName } from "../../dns/dns_name.ts";
import { type DnsRecord, route53Records, upsertChanges } from "../../dns/dns_records.ts";
import { previewWildcard } from "../../config/names.ts";
import { applyChanges, readRecordSets } from "../../dns/route53_zone.ts";
import { deleteWritten, route53Of, zoneOf, zoneOutputs } from "./zone_records.ts";

function wanted(ctx: NodeContext): DnsRecord[] {
  const distributionDomain = optionalOutput(ctx, "distribution", "domainName");
  return route53Records({
    domain: ctx.facts.preview!.domain,
    validation: [],
    ...(distributionDomain ? { distributionDomain } : {}),
  });
}

async function write(ctx: NodeContext): Promise<NodeOutputs> {
  const zone = zoneOf(ctx)!;
  const want = wanted(ctx);
  const r53 = route53Of(ctx);
  const live = await readRecordSets(r53, zone.id, want.map((r) => r.name));
  await applyChanges(r53, zone, upsertChanges(want, live), ctx);
  return zoneOutputs(zone, want);
}

/** The wildcard records node. */
export const wildcardRecordsNode: ResourceNode = {
  id: "wildcardRecords",
  dependsOn: ["distribution", "certificateValidation"],
  wanted: (facts) => facts.preview?.zone !== undefined && facts.preview.zone !== null,
  label: (facts) => `DNS records ${previewWildcard(facts.preview?.domain ?? "")} A/AAAA`,
  async read(ctx) {
    const zone = zoneOf(ctx);
    if (!zone || ctx.facts.preview === undefined) {
      return ctx.recorded ? { outputs: ctx.recorded, drift: ["zone unknown"] } : null;
    }
    const want = wanted(ctx);
    const name = canonicalDnsName(previewWildcard(ctx.facts.preview.domain));
    const live = await readRecordSets(route53Of(ctx), zone.id, [name]);
    const ours = live.filter((l) => l.AliasTarget !== undefined);
    if (ctx.recorded === undefined && ours.length === 0) return null;
    const drift = upsertChanges(want, live).filter((c) => c.Action === "UPSERT").map((c) =>
      `${c.ResourceRecordSet?.Type} ${name} does not point at the distribution`
    );
    return { outputs: zoneOutputs(zone, want), drift };
  },
  create: write,
  update: write,
  delete: (ctx, live) => deleteWritten(ctx, live.outputs),
};
