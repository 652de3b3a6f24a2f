/**
 * What the preview stack's two DNS nodes share: the Route 53 client, the zone they write in
 * (the one `preview bootstrap` found, else the one they recorded), and recorded records read
 * back from the state.
 *
 * @module
 */
import { Route53Client } from "@aws-sdk/client-route-53";
import { CDN_REGION } from "../../config/names.ts";
import type { NodeContext } from "../resource.ts";
import type { JsonValue, NodeOutputs } from "../../state/env_state.ts";
import { deleteChanges, type DnsRecord } from "../../dns/dns_records.ts";
import type { HostedZoneSummary } from "../../dns/hosted_zone.ts";
import { applyChanges, readRecordSets } from "../../dns/route53_zone.ts";

/**
 * The Route 53 client (global; signed for us-east-1; `AWS_ENDPOINT_URL_ROUTE_53`).
 *
 * @param ctx the node context
 * @returns the client
 */
export function route53Of(ctx: NodeContext): Route53Client {
  return ctx.clients.client(Route53Client, "ROUTE_53", CDN_REGION);
}

/**
 * The zone a DNS node writes in: the one bootstrap found, else the one it recorded (`status`
 * and `teardown` do not look zones up).
 *
 * @param ctx the node context
 * @returns the zone, or `undefined` when there is none
 */
export function zoneOf(ctx: NodeContext): HostedZoneSummary | undefined {
  const found = ctx.facts.preview?.zone;
  if (found) return found;
  const id = ctx.recorded?.zoneId;
  const name = ctx.recorded?.zoneName;
  return typeof id === "string" && typeof name === "string"
    ? { id, name, privateZone: false }
    : undefined;
}

/**
 * The outputs a DNS node records: its zone and the records it wrote.
 *
 * @param zone the zone
 * @param records the records
 * @param extra other outputs (the certificate's status)
 * @returns the outputs
 */
export function zoneOutputs(
  zone: HostedZoneSummary,
  records: readonly DnsRecord[],
  extra: Record<string, JsonValue> = {},
): NodeOutputs {
  return {
    zoneId: zone.id,
    zoneName: zone.name,
    records: records.map((r) => ({ ...r })),
    ...extra,
  };
}

/**
 * The records a DNS node recorded (what teardown may delete).
 *
 * @param outputs the node's outputs
 * @returns the records (empty when none)
 */
export function recordedRecords(outputs: NodeOutputs | undefined): DnsRecord[] {
  const list = outputs?.records;
  if (!Array.isArray(list)) return [];
  return list.flatMap((r) => {
    const o = r as Record<string, JsonValue>;
    const type = o?.type;
    return typeof o?.name === "string" && typeof o.value === "string" &&
        (type === "CNAME" || type === "A" || type === "AAAA")
      ? [{ name: o.name, type, value: o.value, alias: o.alias === true }]
      : [];
  });
}

/**
 * Deletes the records a DNS node wrote, only those still holding what it wrote.
 *
 * @param ctx the node context
 * @param outputs the node's recorded outputs
 */
export async function deleteWritten(ctx: NodeContext, outputs: NodeOutputs): Promise<void> {
  const zone = zoneOf({ ...ctx, recorded: outputs });
  const written = recordedRecords(outputs);
  if (!zone || written.length === 0) return;
  const r53 = route53Of(ctx);
  const current = await readRecordSets(r53, zone.id, written.map((r) => r.name));
  await applyChanges(r53, zone, deleteChanges(written, current), ctx);
}
