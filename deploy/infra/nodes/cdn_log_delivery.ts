/**
 * The delivery of the distribution's access logs into the CDN access-log group (CloudFront
 * standard logging v2 through CloudWatch Logs' vended-log delivery, all in us-east-1): a
 * delivery source for the distribution (`ACCESS_LOGS`), a delivery destination for the log
 * group, and the delivery pairing them. Without it the log group exists but stays empty.
 *
 * The three are one node: they only mean something together, and a source's resource cannot
 * be changed in place, so a drifted delivery is rebuilt (deleted, then created again).
 *
 * @module
 */
import {
  type CloudWatchLogsClient,
  CreateDeliveryCommand,
  DeleteDeliveryCommand,
  DeleteDeliveryDestinationCommand,
  DeleteDeliverySourceCommand,
  type Delivery,
  DescribeDeliveriesCommand,
  GetDeliveryDestinationCommand,
  GetDeliverySourceCommand,
  PutDeliveryDestinationCommand,
  PutDeliverySourceCommand,
} from "@aws-sdk/client-cloudwatch-logs";
import { CDN_REGION, cdnLogDeliveryName } from "../../config/names.ts";
import type { NodeOutputs } from "../../state/env_state.ts";
import { aws, awsErrorCode, awsMaybe } from "../aws_errors.ts";
import type { NodeContext, ResourceNode, SiteFacts } from "../resource.ts";
import { optionalOutput, requireOutput } from "./outputs.ts";

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
 * The ARN CloudWatch Logs names a log group by in a delivery destination (no `:*`).
 *
 * @param accountId the AWS account
 * @param name the log group name
 * @returns `arn:aws:logs:us-east-1:<account>:log-group:<name>`
 */
export function cdnLogGroupArn(accountId: string, name: string): string {
  return `arn:aws:logs:${CDN_REGION}:${accountId}:log-group:${name}`;
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
 * cdnLogDeliverySpec(facts, "arn:aws:cloudfront::123456789012:distribution/E1").name;
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
    destinationArn: cdnLogGroupArn(facts.accountId, facts.cdnLogGroup),
    tags: facts.tags,
  };
}

/** What was read live, for {@linkcode cdnLogDeliveryDrift}. */
export interface LiveCdnLogDelivery {
  /** The source's resource ARNs and log type. */
  readonly source: { readonly resourceArns: readonly string[]; readonly logType: string };
  /** The destination's target ARN and format, when the destination exists. */
  readonly destination?: { readonly arn: string; readonly target: string; readonly format: string };
  /** The delivery from the source, when one exists: where it goes. */
  readonly delivery?: { readonly id: string; readonly destinationArn: string };
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
  if (delivery === undefined) {
    drift.push("no delivery from the source to the destination");
  } else if (destination !== undefined && delivery.destinationArn !== destination.arn) {
    drift.push(`delivery to ${delivery.destinationArn}, want ${destination.arn}`);
  }
  return drift;
}

const label = (spec: Pick<CdnLogDeliverySpec, "name">) =>
  `access-log delivery ${spec.name} (${CDN_REGION})`;

/** The CDN access-log delivery node (us-east-1). */
export const cdnLogDeliveryNode: ResourceNode = {
  id: "cdnLogDelivery",
  dependsOn: ["distribution", "cdnLogGroup"],
  wanted: () => true,
  label: (facts) => label(cdnLogDeliverySpec(facts, undefined)),
  async read(ctx) {
    const spec = specFor(ctx, optionalOutput(ctx, "distribution", "arn"));
    const live = await readLive(ctx.clients.cdnLogs, spec);
    if (!live) return null;
    return { outputs: outputsOf(spec, live), drift: cdnLogDeliveryDrift(spec, live) };
  },
  async create(ctx) {
    const spec = specFor(ctx, requireOutput(ctx, "distribution", "arn"));
    const logs = ctx.clients.cdnLogs;
    const at = (action: string) => ({ resource: label(spec), action });
    await aws(at("logs:PutDeliverySource"), () =>
      logs.send(
        new PutDeliverySourceCommand({
          name: spec.name,
          resourceArn: spec.sourceArn,
          logType: CDN_LOG_TYPE,
          tags: { ...spec.tags },
        }),
      ));
    const destination = await aws(at("logs:PutDeliveryDestination"), () =>
      logs.send(
        new PutDeliveryDestinationCommand({
          name: spec.name,
          outputFormat: CDN_LOG_FORMAT,
          deliveryDestinationConfiguration: { destinationResourceArn: spec.destinationArn },
          tags: { ...spec.tags },
        }),
      ));
    const destinationArn = destination.deliveryDestination?.arn ?? "";
    const delivery = await aws(at("logs:CreateDelivery"), async () => {
      try {
        return (await logs.send(
          new CreateDeliveryCommand({
            deliverySourceName: spec.name,
            deliveryDestinationArn: destinationArn,
            tags: { ...spec.tags },
          }),
        )).delivery;
      } catch (err) {
        // Created by a run that crashed before recording it: adopt it.
        if (awsErrorCode(err) !== "ConflictException") throw err;
        return (await deliveriesOf(logs, spec.name)).find((d) =>
          d.deliveryDestinationArn === destinationArn
        );
      }
    });
    return {
      name: spec.name,
      destinationArn,
      ...(delivery?.id ? { deliveryId: delivery.id } : {}),
    };
  },
  async update(ctx, live) {
    await cdnLogDeliveryNode.delete(ctx, live);
    return await cdnLogDeliveryNode.create(ctx);
  },
  async delete(ctx) {
    const spec = specFor(ctx, undefined);
    const logs = ctx.clients.cdnLogs;
    const at = (action: string) => ({ resource: label(spec), action });
    // Deliveries first: CloudWatch Logs refuses to delete a source or destination in use.
    for (const d of await deliveriesOf(logs, spec.name)) {
      await awsMaybe(
        at("logs:DeleteDelivery"),
        () => logs.send(new DeleteDeliveryCommand({ id: d.id })),
      );
    }
    await awsMaybe(
      at("logs:DeleteDeliveryDestination"),
      () => logs.send(new DeleteDeliveryDestinationCommand({ name: spec.name })),
    );
    await awsMaybe(
      at("logs:DeleteDeliverySource"),
      () => logs.send(new DeleteDeliverySourceCommand({ name: spec.name })),
    );
  },
};

function specFor(ctx: NodeContext, distributionArn: string | undefined): CdnLogDeliverySpec {
  return cdnLogDeliverySpec(ctx.facts, distributionArn);
}

/** The live source, destination and delivery; `null` when the source does not exist. */
async function readLive(
  logs: CloudWatchLogsClient,
  spec: CdnLogDeliverySpec,
): Promise<LiveCdnLogDelivery | null> {
  const at = (action: string) => ({ resource: label(spec), action });
  const source = (await awsMaybe(
    at("logs:GetDeliverySource"),
    () => logs.send(new GetDeliverySourceCommand({ name: spec.name })),
  ))?.deliverySource;
  if (!source) return null;
  const destination = (await awsMaybe(
    at("logs:GetDeliveryDestination"),
    () => logs.send(new GetDeliveryDestinationCommand({ name: spec.name })),
  ))?.deliveryDestination;
  const [delivery] = await deliveriesOf(logs, spec.name);
  return {
    source: { resourceArns: source.resourceArns ?? [], logType: source.logType ?? "" },
    ...(destination
      ? {
        destination: {
          arn: destination.arn ?? "",
          target: destination.deliveryDestinationConfiguration?.destinationResourceArn ?? "",
          format: destination.outputFormat ?? "",
        },
      }
      : {}),
    ...(delivery?.id
      ? { delivery: { id: delivery.id, destinationArn: delivery.deliveryDestinationArn ?? "" } }
      : {}),
  };
}

/** Every delivery from the source `name` (all pages). */
async function deliveriesOf(logs: CloudWatchLogsClient, name: string): Promise<Delivery[]> {
  const out: Delivery[] = [];
  let nextToken: string | undefined;
  do {
    const page = await aws(
      { resource: label({ name }), action: "logs:DescribeDeliveries" },
      () => logs.send(new DescribeDeliveriesCommand({ ...(nextToken ? { nextToken } : {}) })),
    );
    out.push(...(page.deliveries ?? []).filter((d) => d.deliverySourceName === name));
    nextToken = page.nextToken;
  } while (nextToken);
  return out;
}

function outputsOf(spec: CdnLogDeliverySpec, live: LiveCdnLogDelivery): NodeOutputs {
  return {
    name: spec.name,
    destinationArn: live.destination?.arn ?? "",
    ...(live.delivery ? { deliveryId: live.delivery.id } : {}),
  };
}
