/**
 * The delivery of the distribution's access logs into the CDN access-log group (CloudFront
 * standard logging v2 through CloudWatch Logs' vended-log delivery, all in us-east-1): a
 * delivery source for the distribution (`ACCESS_LOGS`), a delivery destination for the log
 * group, and the delivery pairing them. Without it the log group exists but stays empty.
 *
 * The three are one node: they only mean something together. Creating and repairing share one
 * convergence: each part is read and only what is missing or wrong is made again (a source's
 * resource cannot change in place, so a source on another resource is replaced; a destination is
 * overwritten in place). Tags go only on parts being created: CloudWatch Logs refuses tags on an
 * update. Deliveries from the source to anywhere else (the analytics plugin's) are left alone
 * unless the source itself must be replaced; teardown deletes only the site's own delivery and
 * destination, and keeps the source while another delivery uses it.
 *
 * @module
 */
import {
  type CloudWatchLogsClient,
  DeleteDeliveryCommand,
  DeleteDeliveryDestinationCommand,
  DeleteDeliverySourceCommand,
  type Delivery,
  type DeliveryDestination,
  GetDeliveryDestinationCommand,
  GetDeliverySourceCommand,
  paginateDescribeDeliverySources,
  PutDeliveryDestinationCommand,
  PutDeliverySourceCommand,
} from "@aws-sdk/client-cloudwatch-logs";
import { CDN_REGION, cdnLogDeliveryName, logGroupArn } from "../../config/names.ts";
import { DeployError } from "../../errors.ts";
import type { NodeOutputs } from "../../state/env_state.ts";
import { aws, awsMaybe } from "../../aws/errors.ts";
import { createDelivery, listDeliveries } from "../../aws/log_deliveries.ts";
import type { NodeContext, ResourceNode, SiteFacts } from "../resource.ts";
import { optionalOutput, requireOutput } from "./outputs.ts";
import { allItems } from "../../aws/pages.ts";

/** The log type CloudFront delivers. */
export const CDN_LOG_TYPE = "ACCESS_LOGS";

/** One JSON object per request: what the analytics pipeline and `logs` tooling read. */
export const CDN_LOG_FORMAT = "json";

/** The desired delivery (pure data). */
export interface CdnLogDeliverySpec {
  /** Name of both the delivery source and the delivery destination. */
  readonly name: string;
  /** The distribution's ARN; `undefined` while the distribution does not exist. */
  readonly sourceArn: string | undefined;
  /** The CDN access-log group's ARN. */
  readonly destinationArn: string;
  /** `app` / `environment`. */
  readonly tags: Readonly<Record<string, string>>;
}

/**
 * The delivery's description (pure).
 *
 * @param facts the site
 * @param distributionArn the distribution's ARN, when it exists
 * @returns name, source and destination ARNs, tags
 *
 * @example
 * ```ts
 * import type { SiteFacts } from "../resource.ts";
 *
 * const nameOf = (facts: SiteFacts) =>
 *   cdnLogDeliverySpec(facts, "arn:aws:cloudfront::123456789012:distribution/E1").name;
 * // "production-blog-cdn"
 * ```
 */
export function cdnLogDeliverySpec(
  facts: SiteFacts,
  distributionArn: string | undefined,
): CdnLogDeliverySpec {
  return {
    name: cdnLogDeliveryName(facts.env, facts.config.siteName),
    sourceArn: distributionArn,
    destinationArn: logGroupArn(CDN_REGION, facts.accountId, facts.cdnLogGroup),
    tags: facts.tags,
  };
}

/** What was read live, for {@linkcode cdnLogDeliveryDrift}. */
export interface LiveCdnLogDelivery {
  /** The source's resource ARNs and log type. */
  readonly source: { readonly resourceArns: readonly string[]; readonly logType: string };
  /** The destination's target ARN and format, when the destination exists. */
  readonly destination?: { readonly arn: string; readonly target: string; readonly format: string };
  /** The delivery from the source to that destination, when one exists. */
  readonly delivery?: { readonly id: string };
}

/**
 * How a live delivery differs from the description (pure): one line per difference.
 *
 * @param spec the description
 * @param live what was read
 * @returns the differences; empty when in sync
 */
export function cdnLogDeliveryDrift(spec: CdnLogDeliverySpec, live: LiveCdnLogDelivery): string[] {
  const drift: string[] = [];
  const { source, destination, delivery } = live;
  if (spec.sourceArn !== undefined && !source.resourceArns.includes(spec.sourceArn)) {
    drift.push(`source ${source.resourceArns.join(", ") || "(none)"}, want ${spec.sourceArn}`);
  }
  if (source.logType !== CDN_LOG_TYPE) {
    drift.push(`log type ${source.logType}, want ${CDN_LOG_TYPE}`);
  }
  if (destination === undefined) {
    drift.push("no delivery destination");
  } else {
    if (destination.target !== spec.destinationArn) {
      drift.push(`destination ${destination.target}, want ${spec.destinationArn}`);
    }
    if (destination.format !== CDN_LOG_FORMAT) {
      drift.push(`format ${destination.format}, want ${CDN_LOG_FORMAT}`);
    }
  }
  if (delivery === undefined) drift.push("no delivery from the source to the destination");
  return drift;
}

const label = (spec: Pick<CdnLogDeliverySpec, "name">) =>
  `access-log delivery ${spec.name} (${CDN_REGION})`;

const at = (spec: Pick<CdnLogDeliverySpec, "name">, action: string) => ({
  resource: label(spec),
  action,
});

/** The CDN access-log delivery node (us-east-1). */
export const cdnLogDeliveryNode: ResourceNode = {
  id: "cdnLogDelivery",
  dependsOn: ["distribution", "cdnLogGroup"],
  wanted: () => true,
  label: (facts) => label(cdnLogDeliverySpec(facts, undefined)),
  async read(ctx) {
    const spec = cdnLogDeliverySpec(ctx.facts, optionalOutput(ctx, "distribution", "arn"));
    const live = await readLive(ctx.clients.cdnLogs, spec);
    if (!live) return null;
    return { outputs: outputsOf(spec, live), drift: cdnLogDeliveryDrift(spec, live) };
  },
  create: (ctx) => converge(ctx),
  update: (ctx) => converge(ctx),
  async delete(ctx) {
    const spec = cdnLogDeliverySpec(ctx.facts, undefined);
    const logs = ctx.clients.cdnLogs;
    const destination = await getDestination(logs, spec);
    // Only the site's own delivery: other deliveries from the same source (the analytics
    // plugin's) are theirs. CloudWatch Logs refuses to delete a destination in use, so first.
    for (const d of await deliveriesOf(logs, spec)) {
      if (destination?.arn !== undefined && d.deliveryDestinationArn === destination.arn) {
        await deleteDelivery(logs, spec, d);
      }
    }
    await awsMaybe(
      at(spec, "logs:DeleteDeliveryDestination"),
      () => logs.send(new DeleteDeliveryDestinationCommand({ name: spec.name })),
    );
    const others = (await deliveriesOf(logs, spec)).filter((d) =>
      d.deliverySourceName === spec.name
    );
    if (others.length > 0) {
      ctx.note(
        `kept delivery source ${spec.name} (${CDN_REGION}): ${others.length} other ` +
          `deliver${others.length === 1 ? "y uses" : "ies use"} it`,
      );
      return;
    }
    await awsMaybe(
      at(spec, "logs:DeleteDeliverySource"),
      () => logs.send(new DeleteDeliverySourceCommand({ name: spec.name })),
    );
  },
};

/** Makes the source, the destination and the delivery right, touching only what is not. */
async function converge(ctx: NodeContext): Promise<NodeOutputs> {
  const spec = cdnLogDeliverySpec(ctx.facts, requireOutput(ctx, "distribution", "arn"));
  const logs = ctx.clients.cdnLogs;
  const tags = { ...spec.tags };

  let source = await getSource(logs, spec);
  if (
    source && !(source.resourceArns.includes(spec.sourceArn!) && source.logType === CDN_LOG_TYPE)
  ) {
    // A source's resource cannot change: replace it, with the deliveries that depend on it.
    for (const d of await deliveriesOf(logs, spec)) {
      if (d.deliverySourceName === spec.name) await deleteDelivery(logs, spec, d);
    }
    await aws(
      at(spec, "logs:DeleteDeliverySource"),
      () => logs.send(new DeleteDeliverySourceCommand({ name: spec.name })),
    );
    source = undefined;
  }
  if (!source) {
    await refuseForeignSource(logs, spec);
    await aws(at(spec, "logs:PutDeliverySource"), () =>
      logs.send(
        new PutDeliverySourceCommand({
          name: spec.name,
          resourceArn: spec.sourceArn,
          logType: CDN_LOG_TYPE,
          tags,
        }),
      ));
  }

  let destination = await getDestination(logs, spec);
  const target = destination?.deliveryDestinationConfiguration?.destinationResourceArn;
  if (
    !destination || target !== spec.destinationArn || destination.outputFormat !== CDN_LOG_FORMAT
  ) {
    // Our delivery into a destination being repointed goes first, then is made again below.
    for (const d of await deliveriesOf(logs, spec)) {
      if (destination && d.deliveryDestinationArn === destination.arn) {
        await deleteDelivery(logs, spec, d);
      }
    }
    const put = await aws(at(spec, "logs:PutDeliveryDestination"), () =>
      logs.send(
        new PutDeliveryDestinationCommand({
          name: spec.name,
          outputFormat: CDN_LOG_FORMAT,
          deliveryDestinationConfiguration: { destinationResourceArn: spec.destinationArn },
          // Tags only at creation: CloudWatch Logs refuses them on an update.
          ...(destination ? {} : { tags }),
        }),
      ));
    destination = put.deliveryDestination;
  }
  const destinationArn = destination?.arn ?? "";
  const delivery = (await deliveriesOf(logs, spec)).find((d) => isOurs(spec, d, destinationArn)) ??
    (await createDelivery(
      logs,
      { source: spec.name, destinationArn, tags: spec.tags },
      { resource: label(spec), sleep: ctx.sleep },
    )).delivery;
  return { name: spec.name, destinationArn, deliveryId: delivery.id ?? "" };
}

/**
 * Refuses, with a clear error, a distribution whose access logs another delivery source already
 * takes (standard logging v2 set up in the console, say): CloudWatch Logs allows one per resource.
 */
async function refuseForeignSource(
  logs: CloudWatchLogsClient,
  spec: CdnLogDeliverySpec,
): Promise<void> {
  const sources = await aws(
    at(spec, "logs:DescribeDeliverySources"),
    () =>
      allItems(
        paginateDescribeDeliverySources({ client: logs }, {}),
        (page) => page.deliverySources,
      ),
  );
  const other = sources.find((s) =>
    s.name !== spec.name && s.resourceArns?.includes(spec.sourceArn!)
  );
  if (other) {
    throw new DeployError(
      "aws_request_failed",
      `the distribution's access logs already go to delivery source ${other.name}, so ` +
        `${label(spec)} cannot be made`,
      {
        hint: `delete delivery source ${other.name} (and its deliveries) in CloudWatch Logs ` +
          "(us-east-1), then run `deploy bootstrap` again",
      },
    );
  }
}

function isOurs(spec: CdnLogDeliverySpec, d: Delivery, destinationArn: string): boolean {
  return d.deliverySourceName === spec.name && d.deliveryDestinationArn === destinationArn;
}

async function getSource(
  logs: CloudWatchLogsClient,
  spec: CdnLogDeliverySpec,
): Promise<{ resourceArns: string[]; logType: string } | undefined> {
  const source = (await awsMaybe(
    at(spec, "logs:GetDeliverySource"),
    () => logs.send(new GetDeliverySourceCommand({ name: spec.name })),
  ))?.deliverySource;
  return source && { resourceArns: source.resourceArns ?? [], logType: source.logType ?? "" };
}

async function getDestination(
  logs: CloudWatchLogsClient,
  spec: CdnLogDeliverySpec,
): Promise<DeliveryDestination | undefined> {
  return (await awsMaybe(
    at(spec, "logs:GetDeliveryDestination"),
    () => logs.send(new GetDeliveryDestinationCommand({ name: spec.name })),
  ))?.deliveryDestination;
}

async function deleteDelivery(
  logs: CloudWatchLogsClient,
  spec: CdnLogDeliverySpec,
  d: Delivery,
): Promise<void> {
  await awsMaybe(
    at(spec, "logs:DeleteDelivery"),
    () => logs.send(new DeleteDeliveryCommand({ id: d.id })),
  );
}

/** The live source, destination and our delivery; `null` when the source does not exist. */
async function readLive(
  logs: CloudWatchLogsClient,
  spec: CdnLogDeliverySpec,
): Promise<LiveCdnLogDelivery | null> {
  const source = await getSource(logs, spec);
  if (!source) return null;
  const destination = await getDestination(logs, spec);
  const delivery = destination?.arn === undefined
    ? undefined
    : (await deliveriesOf(logs, spec)).find((d) => isOurs(spec, d, destination.arn!));
  return {
    source,
    ...(destination
      ? {
        destination: {
          arn: destination.arn ?? "",
          target: destination.deliveryDestinationConfiguration?.destinationResourceArn ?? "",
          format: destination.outputFormat ?? "",
        },
      }
      : {}),
    ...(delivery?.id ? { delivery: { id: delivery.id } } : {}),
  };
}

/** Every delivery of the site's log source's account and region (all pages). */
function deliveriesOf(logs: CloudWatchLogsClient, spec: CdnLogDeliverySpec): Promise<Delivery[]> {
  return listDeliveries(logs, label(spec));
}

function outputsOf(spec: CdnLogDeliverySpec, live: LiveCdnLogDelivery): NodeOutputs {
  return {
    name: spec.name,
    destinationArn: live.destination?.arn ?? "",
    ...(live.delivery ? { deliveryId: live.delivery.id } : {}),
  };
}
