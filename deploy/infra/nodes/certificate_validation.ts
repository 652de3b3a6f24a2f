/**
 * The preview stack's certificate validation, as a resource node: with a Route 53 zone
 * enclosing the preview domain, write the wildcard certificate's validation CNAMEs there and
 * wait until ACM issues it, so the distribution node that follows attaches `*.<domain>` in the
 * same run. Without such a zone the node is not wanted and `preview bootstrap` prints the
 * records instead.
 *
 * @module
 */
import { recordedValidation } from "./certificate.ts";
import type { NodeContext, ResourceNode } from "../resource.ts";
import type { NodeOutputs } from "../../state/env_state.ts";
import {
  type CertificateToValidate,
  validateInZone,
  validationDrift,
} from "../../dns/dns_validation.ts";
import { previewWildcard } from "../../config/names.ts";
import { deleteWritten, recordedRecords, route53Of, zoneOf, zoneOutputs } from "./zone_records.ts";

function certificateOf(ctx: NodeContext): CertificateToValidate | undefined {
  const cert = ctx.outputs.certificate;
  if (typeof cert?.arn !== "string" || cert.arn === "") return undefined;
  return {
    arn: cert.arn,
    status: typeof cert.status === "string" ? cert.status : "PENDING_VALIDATION",
    validation: recordedValidation(cert),
  };
}

async function validate(ctx: NodeContext): Promise<NodeOutputs> {
  const zone = zoneOf(ctx)!;
  const cert = certificateOf(ctx)!;
  const domain = ctx.facts.preview!.domain;
  ctx.note(`writing the certificate's validation records in zone ${zone.name}`);
  const result = await validateInZone(
    { r53: route53Of(ctx), acm: ctx.clients.acm, zone, sleep: ctx.sleep, clock: ctx.clock },
    cert,
    domain,
  );
  if (result.status !== "ISSUED") {
    ctx.note(`certificate for ${previewWildcard(domain)} is still ${result.status}`);
  }
  return zoneOutputs(zone, result.records, { status: result.status });
}

/** The certificate validation node. */
export const certificateValidationNode: ResourceNode = {
  id: "certificateValidation",
  dependsOn: ["certificate"],
  wanted: (facts) => facts.preview?.zone !== undefined && facts.preview.zone !== null,
  label: (facts) =>
    `DNS validation of the certificate for ${previewWildcard(facts.preview?.domain ?? "")}`,
  async read(ctx) {
    const zone = zoneOf(ctx);
    const cert = certificateOf(ctx);
    const domain = ctx.facts.preview?.domain;
    if (!zone || !cert || domain === undefined) {
      return ctx.recorded ? { outputs: ctx.recorded, drift: ["certificate missing"] } : null;
    }
    const r53 = { r53: route53Of(ctx), zone };
    const missing = await validationDrift(r53, cert, domain);
    if (ctx.recorded === undefined && missing.length === cert.validation.length) return null;
    const drift = [
      ...missing,
      ...(cert.status === "ISSUED" ? [] : [`certificate ${cert.status}`]),
    ];
    return {
      outputs: zoneOutputs(zone, recordedRecords(ctx.recorded), { status: cert.status }),
      drift,
    };
  },
  create: validate,
  update: validate,
  delete: (ctx, live) => deleteWritten(ctx, live.outputs),
};
