/**
 * The pipeline's delivery from the site's CloudFront log source into the stream's destination
 * (us-east-1): a second delivery beside the site's own one into its log group, so both get
 * every record. It selects only the fields a row needs: never `cs(Cookie)` or
 * `x-forwarded-for`. Deleting it leaves the site's source and delivery alone.
 *
 * @module
 */
import {
  DeleteDeliveryCommand,
  type Delivery,
  GetDeliverySourceCommand,
  UpdateDeliveryConfigurationCommand,
} from "@aws-sdk/client-cloudwatch-logs";
import {
  aws,
  awsMaybe,
  createDelivery,
  DeployError,
  findDelivery,
  type NodeOutputs,
  requireOutput,
} from "@org/deploy/plugin";
import { SELECTED_LOG_FIELDS } from "../../transform/cloudfront_record.ts";
import type { AnalyticsContext, AnalyticsFacts, AnalyticsNode } from "../facts.ts";
import { ANALYTICS_REGION } from "../names.ts";
import { ANALYTICS_BOOTSTRAP } from "./roles.ts";

const label = (facts: AnalyticsFacts) =>
  `log delivery ${facts.names.logSource} → ${facts.names.logDestination} (${ANALYTICS_REGION})`;
const at = (facts: AnalyticsFacts, action: string) => ({ resource: label(facts), action });

/**
 * How the live delivery's field selection differs (pure).
 *
 * @param live the fields the delivery selects (absent: all, cookies included)
 * @returns the drift lines
 */
export function recordFieldsDrift(live: readonly string[] | undefined): string[] {
  const want = [...SELECTED_LOG_FIELDS];
  if (live === undefined) return ["selects every field (cookies included), want the row's fields"];
  const same = live.length === want.length && want.every((f) => live.includes(f));
  return same ? [] : [`selects ${live.join(", ")}, want ${want.join(", ")}`];
}

function ours(ctx: AnalyticsContext, destinationArn: string): Promise<Delivery | undefined> {
  return findDelivery(
    ctx.clients.logs,
    { source: ctx.facts.names.logSource, destinationArn },
    label(ctx.facts),
  );
}

const outputs = (facts: AnalyticsFacts, d: Delivery): NodeOutputs => ({
  id: d.id ?? "",
  source: facts.names.logSource,
  destinationArn: d.deliveryDestinationArn ?? "",
});

async function requireSource(ctx: AnalyticsContext): Promise<void> {
  const source = await awsMaybe(
    at(ctx.facts, "logs:GetDeliverySource"),
    () => ctx.clients.logs.send(new GetDeliverySourceCommand({ name: ctx.facts.names.logSource })),
  );
  if (!source?.deliverySource) {
    throw new DeployError(
      "state_missing",
      `the site's CloudFront log source ${ctx.facts.names.logSource} (${ANALYTICS_REGION}) does not exist`,
      { hint: `run \`deploy bootstrap ${ctx.facts.env}\` first, then \`${ANALYTICS_BOOTSTRAP}\`` },
    );
  }
}

/** The log delivery node. */
export const logDeliveryNode: AnalyticsNode = {
  id: "logDelivery",
  dependsOn: ["logDestination"],
  wanted: () => true,
  label,
  async read(ctx) {
    const destination = ctx.outputs.logDestination?.arn;
    if (typeof destination !== "string" || destination === "") return null;
    const d = await ours(ctx, destination);
    if (!d) return null;
    return { outputs: outputs(ctx.facts, d), drift: recordFieldsDrift(d.recordFields) };
  },
  async create(ctx) {
    const destinationArn = requireOutput(ctx, "logDestination", "arn", ANALYTICS_BOOTSTRAP);
    await requireSource(ctx);
    const { delivery, adopted } = await createDelivery(ctx.clients.logs, {
      source: ctx.facts.names.logSource,
      destinationArn,
      recordFields: SELECTED_LOG_FIELDS,
      tags: ctx.facts.tags,
    }, { resource: label(ctx.facts), sleep: ctx.sleep });
    // One a crashed run made may select other fields.
    return adopted && recordFieldsDrift(delivery.recordFields).length > 0
      ? await logDeliveryNode.update(ctx, { outputs: outputs(ctx.facts, delivery), drift: [] })
      : outputs(ctx.facts, delivery);
  },
  async update(ctx, live) {
    await aws(
      at(ctx.facts, "logs:UpdateDeliveryConfiguration"),
      () =>
        ctx.clients.logs.send(
          new UpdateDeliveryConfigurationCommand({
            id: String(live.outputs.id),
            recordFields: [...SELECTED_LOG_FIELDS],
          }),
        ),
    );
    return live.outputs;
  },
  async delete(ctx, live) {
    // Only this delivery: the source is the site's, and its own delivery keeps working.
    await awsMaybe(
      at(ctx.facts, "logs:DeleteDelivery"),
      () => ctx.clients.logs.send(new DeleteDeliveryCommand({ id: String(live.outputs.id) })),
    );
  },
};
