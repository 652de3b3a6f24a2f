/**
 * The CloudWatch Logs delivery destination for the Firehose stream (us-east-1): what the
 * pipeline's delivery from the site's CloudFront log source points at. JSON records, as the
 * transform reads them.
 *
 * @module
 */
import {
  DeleteDeliveryDestinationCommand,
  GetDeliveryDestinationCommand,
  PutDeliveryDestinationCommand,
} from "@aws-sdk/client-cloudwatch-logs";
import {
  aws,
  awsMaybe,
  CDN_LOG_FORMAT,
  type NodeOutputs,
  requireOutput,
  tagDrift,
} from "@org/deploy/plugin";
import type { AnalyticsContext, AnalyticsFacts, AnalyticsNode } from "../facts.ts";
import { ANALYTICS_REGION } from "../names.ts";
import { ANALYTICS_BOOTSTRAP } from "./roles.ts";

const label = (facts: AnalyticsFacts) =>
  `log delivery destination ${facts.names.logDestination} (${ANALYTICS_REGION})`;
const at = (facts: AnalyticsFacts, action: string) => ({ resource: label(facts), action });

async function get(ctx: AnalyticsContext) {
  return (await awsMaybe(
    at(ctx.facts, "logs:GetDeliveryDestination"),
    () =>
      ctx.clients.logs.send(
        new GetDeliveryDestinationCommand({ name: ctx.facts.names.logDestination }),
      ),
  ))?.deliveryDestination;
}

async function put(ctx: AnalyticsContext, exists: boolean): Promise<NodeOutputs> {
  const stream = requireOutput(ctx, "stream", "arn", ANALYTICS_BOOTSTRAP);
  const out = await aws(at(ctx.facts, "logs:PutDeliveryDestination"), () =>
    ctx.clients.logs.send(
      new PutDeliveryDestinationCommand({
        name: ctx.facts.names.logDestination,
        outputFormat: CDN_LOG_FORMAT,
        deliveryDestinationConfiguration: { destinationResourceArn: stream },
        // Tags only at creation: CloudWatch Logs refuses them on an update.
        ...(exists ? {} : { tags: { ...ctx.facts.tags } }),
      }),
    ));
  return { name: ctx.facts.names.logDestination, arn: out.deliveryDestination?.arn ?? "" };
}

/** The log delivery destination node. */
export const logDestinationNode: AnalyticsNode = {
  id: "logDestination",
  dependsOn: ["stream"],
  wanted: () => true,
  label,
  async read(ctx) {
    const d = await get(ctx);
    if (!d) return null;
    const drift: string[] = [];
    const target = d.deliveryDestinationConfiguration?.destinationResourceArn;
    const stream = ctx.outputs.stream?.arn;
    if (typeof stream === "string" && target !== stream) {
      drift.push(`destination ${target ?? "(none)"}, want ${stream}`);
    }
    if (d.outputFormat !== CDN_LOG_FORMAT) {
      drift.push(`format ${d.outputFormat}, want ${CDN_LOG_FORMAT}`);
    }
    drift.push(...tagDrift(d.tags ?? {}, ctx.facts.tags));
    return { outputs: { name: ctx.facts.names.logDestination, arn: d.arn ?? "" }, drift };
  },
  create: (ctx) => put(ctx, false),
  update: (ctx) => put(ctx, true),
  async delete(ctx) {
    await awsMaybe(
      at(ctx.facts, "logs:DeleteDeliveryDestination"),
      () =>
        ctx.clients.logs.send(
          new DeleteDeliveryDestinationCommand({ name: ctx.facts.names.logDestination }),
        ),
    );
  },
};
