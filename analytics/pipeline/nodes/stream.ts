/**
 * The Firehose stream (`<env>-<siteName>-analytics`, us-east-1, Direct PUT): CloudWatch Logs
 * delivers the site's access-log records into it; the transform Lambda maps each to a row; it
 * writes the rows into the Iceberg table through the `s3tablescatalog` catalog, and anything it
 * cannot deliver (and every `ProcessingFailed` record) into the error bucket. It logs its own
 * failures to its log group. Tagged `LogDeliveryEnabled=true`, which CloudWatch Logs requires of
 * a stream it delivers vended logs to.
 *
 * @module
 */
import {
  CreateDeliveryStreamCommand,
  DeleteDeliveryStreamCommand,
  type DeliveryStreamDescription,
  DescribeDeliveryStreamCommand,
  type IcebergDestinationConfiguration,
  type IcebergDestinationDescription,
  ListTagsForDeliveryStreamCommand,
  TagDeliveryStreamCommand,
  UpdateDestinationCommand,
} from "@aws-sdk/client-firehose";
import {
  aws,
  awsErrorCode,
  awsFailure,
  awsMaybe,
  DeployError,
  type NodeOutputs,
  requireOutput,
  tagDrift,
  tagList,
  tagMap,
} from "@org/deploy/plugin";
import type { AnalyticsContext, AnalyticsFacts, AnalyticsNode } from "../facts.ts";
import { ANALYTICS_REGION } from "../names.ts";
import { FAILED_RECORDS_PREFIX } from "./error_bucket.ts";
import { whileRolePropagates } from "../role_propagation.ts";
import { ANALYTICS_BOOTSTRAP } from "./roles.ts";

/** The tag CloudWatch Logs requires on a stream it delivers vended logs to. */
export const LOG_DELIVERY_TAG = { LogDeliveryEnabled: "true" } as const;

/** What the stream's configuration names (other nodes' outputs). */
export interface StreamInputs {
  readonly roleArn: string;
  readonly transformArn: string;
  readonly errorBucketArn: string;
}

/**
 * The stream's Iceberg destination (pure).
 *
 * @param facts the pipeline
 * @param inputs role, transform and error bucket ARNs
 * @returns the destination configuration
 */
export function streamDestination(
  facts: AnalyticsFacts,
  inputs: StreamInputs,
): IcebergDestinationConfiguration {
  const { names } = facts;
  return {
    RoleARN: inputs.roleArn,
    CatalogConfiguration: { CatalogARN: names.catalogArn },
    // No column list: Firehose maps each top-level key of the transform's JSON rows to the
    // table column of that name, so a column lands once the table has it. Schema evolution
    // stays with bootstrap (the table node, before the transform is updated), not with
    // Firehose's SchemaEvolutionConfiguration, which would type columns from the JSON it sees.
    DestinationTableConfigurationList: [{
      DestinationDatabaseName: names.namespace,
      DestinationTableName: names.table,
    }],
    // Rows are buffered up to 5 minutes (or 64 MiB): few, larger files keep the table fast.
    BufferingHints: { IntervalInSeconds: 300, SizeInMBs: 64 },
    ProcessingConfiguration: {
      Enabled: true,
      Processors: [{
        Type: "Lambda",
        Parameters: [
          { ParameterName: "LambdaArn", ParameterValue: inputs.transformArn },
          { ParameterName: "BufferSizeInMBs", ParameterValue: "1" },
          { ParameterName: "BufferIntervalInSeconds", ParameterValue: "60" },
        ],
      }],
    },
    CloudWatchLoggingOptions: {
      Enabled: true,
      LogGroupName: names.streamLogGroup,
      LogStreamName: "DestinationDelivery",
    },
    S3BackupMode: "FailedDataOnly",
    RetryOptions: { DurationInSeconds: 300 },
    S3Configuration: {
      RoleARN: inputs.roleArn,
      BucketARN: inputs.errorBucketArn,
      ErrorOutputPrefix:
        `${FAILED_RECORDS_PREFIX}!{firehose:error-output-type}/!{timestamp:yyyy/MM/dd}/`,
    },
  };
}

/**
 * How a live destination differs from the description (pure).
 *
 * @param want the description
 * @param live the live destination
 * @returns one line per difference
 */
export function streamDrift(
  want: IcebergDestinationConfiguration,
  live: IcebergDestinationDescription,
): string[] {
  const drift: string[] = [];
  const check = (what: string, have: unknown, wanted: unknown) => {
    if (have !== wanted) drift.push(`${what} ${String(have ?? "(none)")}, want ${String(wanted)}`);
  };
  check("role", live.RoleARN, want.RoleARN);
  check("catalog", live.CatalogConfiguration?.CatalogARN, want.CatalogConfiguration?.CatalogARN);
  const table = (l: typeof want.DestinationTableConfigurationList) =>
    (l ?? []).map((t) => `${t.DestinationDatabaseName}.${t.DestinationTableName}`).join(", ");
  check(
    "table",
    table(live.DestinationTableConfigurationList),
    table(want.DestinationTableConfigurationList),
  );
  const lambda = (p: typeof want.ProcessingConfiguration) =>
    p?.Enabled === true
      ? p.Processors?.[0]?.Parameters?.find((x) => x.ParameterName === "LambdaArn")?.ParameterValue
      : undefined;
  check("transform", lambda(live.ProcessingConfiguration), lambda(want.ProcessingConfiguration));
  check(
    "error bucket",
    live.S3DestinationDescription?.BucketARN,
    want.S3Configuration?.BucketARN,
  );
  check(
    "log group",
    live.CloudWatchLoggingOptions?.LogGroupName,
    want.CloudWatchLoggingOptions?.LogGroupName,
  );
  return drift;
}

const label = (facts: AnalyticsFacts) =>
  `Firehose stream ${facts.names.stream} (${ANALYTICS_REGION})`;
const at = (facts: AnalyticsFacts, action: string) => ({ resource: label(facts), action });

/** Polls while the stream is being created (Firehose takes seconds to minutes). */
const ACTIVE_POLLS = 60;

function inputsOf(ctx: AnalyticsContext): StreamInputs {
  return {
    roleArn: requireOutput(ctx, "streamRole", "arn", ANALYTICS_BOOTSTRAP),
    transformArn: requireOutput(ctx, "transform", "arn", ANALYTICS_BOOTSTRAP),
    errorBucketArn: requireOutput(ctx, "errorBucket", "arn", ANALYTICS_BOOTSTRAP),
  };
}

function knownInputs(ctx: AnalyticsContext): StreamInputs | undefined {
  const o = ctx.outputs;
  const [roleArn, transformArn, errorBucketArn] = [
    o.streamRole?.arn,
    o.transform?.arn,
    o.errorBucket?.arn,
  ];
  return typeof roleArn === "string" && typeof transformArn === "string" &&
      typeof errorBucketArn === "string"
    ? { roleArn, transformArn, errorBucketArn }
    : undefined;
}

async function describe(ctx: AnalyticsContext): Promise<DeliveryStreamDescription | undefined> {
  const out = await awsMaybe(
    at(ctx.facts, "firehose:DescribeDeliveryStream"),
    () =>
      ctx.clients.firehose.send(
        new DescribeDeliveryStreamCommand({ DeliveryStreamName: ctx.facts.names.stream }),
      ),
  );
  return out?.DeliveryStreamDescription;
}

async function waitActive(ctx: AnalyticsContext): Promise<DeliveryStreamDescription> {
  for (let i = 0; i < ACTIVE_POLLS; i++) {
    const d = await describe(ctx);
    if (d?.DeliveryStreamStatus === "ACTIVE") return d;
    if (d?.DeliveryStreamStatus?.endsWith("FAILED")) {
      throw new DeployError(
        "aws_request_failed",
        `${label(ctx.facts)} is ${d.DeliveryStreamStatus}: ${
          d.FailureDescription?.Details ?? "no detail"
        }`,
        { hint: `see its log group, fix the cause, then run \`${ANALYTICS_BOOTSTRAP}\` again` },
      );
    }
    await ctx.sleep(5000);
  }
  throw new DeployError("aws_request_failed", `${label(ctx.facts)} did not become ACTIVE`, {
    hint: `run \`${ANALYTICS_BOOTSTRAP}\` again once it is`,
  });
}

function outputs(facts: AnalyticsFacts, d: DeliveryStreamDescription): NodeOutputs {
  return {
    name: facts.names.stream,
    arn: d.DeliveryStreamARN ?? "",
    status: d.DeliveryStreamStatus ?? "UNKNOWN",
  };
}

async function liveTags(ctx: AnalyticsContext): Promise<Record<string, string>> {
  const out = await aws(
    at(ctx.facts, "firehose:ListTagsForDeliveryStream"),
    () =>
      ctx.clients.firehose.send(
        new ListTagsForDeliveryStreamCommand({ DeliveryStreamName: ctx.facts.names.stream }),
      ),
  );
  return tagMap(out.Tags);
}

const wantTags = (facts: AnalyticsFacts) => ({ ...facts.tags, ...LOG_DELIVERY_TAG });

/** The stream node. */
export const streamNode: AnalyticsNode = {
  id: "stream",
  dependsOn: ["streamRole", "transform", "errorBucket", "streamLogGroup", "table", "catalog"],
  wanted: () => true,
  label,
  async read(ctx) {
    const d = await describe(ctx);
    if (!d) return null;
    const drift = tagDrift(await liveTags(ctx), wantTags(ctx.facts));
    const inputs = knownInputs(ctx);
    const live = d.Destinations?.[0]?.IcebergDestinationDescription;
    if (inputs) {
      if (!live) drift.unshift("destination is not an Iceberg table");
      else drift.unshift(...streamDrift(streamDestination(ctx.facts, inputs), live));
    }
    return { outputs: outputs(ctx.facts, d), drift };
  },
  async create(ctx) {
    const destination = streamDestination(ctx.facts, inputsOf(ctx));
    try {
      await whileRolePropagates(
        ctx.sleep,
        (err) =>
          awsErrorCode(err) === "InvalidArgumentException" &&
          /assume role/i.test((err as Error).message),
        () =>
          ctx.clients.firehose.send(
            new CreateDeliveryStreamCommand({
              DeliveryStreamName: ctx.facts.names.stream,
              DeliveryStreamType: "DirectPut",
              IcebergDestinationConfiguration: destination,
              Tags: tagList(wantTags(ctx.facts)),
            }),
          ),
      );
    } catch (err) {
      // A crashed run created it: adopt it (the update below fixes what differs).
      if (awsErrorCode(err) !== "ResourceInUseException") {
        throw awsFailure(err, at(ctx.facts, "firehose:CreateDeliveryStream"));
      }
    }
    const d = await waitActive(ctx);
    const live = d.Destinations?.[0]?.IcebergDestinationDescription;
    if (live && streamDrift(destination, live).length > 0) {
      return await streamNode.update(ctx, { outputs: outputs(ctx.facts, d), drift: [] });
    }
    return outputs(ctx.facts, d);
  },
  async update(ctx) {
    const d = await waitActive(ctx);
    const destination = streamDestination(ctx.facts, inputsOf(ctx));
    const live = d.Destinations?.[0]?.IcebergDestinationDescription;
    if (!live || streamDrift(destination, live).length > 0) {
      await aws(
        at(ctx.facts, "firehose:UpdateDestination"),
        () =>
          ctx.clients.firehose.send(
            new UpdateDestinationCommand({
              DeliveryStreamName: ctx.facts.names.stream,
              CurrentDeliveryStreamVersionId: d.VersionId,
              DestinationId: d.Destinations?.[0]?.DestinationId,
              IcebergDestinationUpdate: destination,
            }),
          ),
      );
    }
    if (tagDrift(await liveTags(ctx), wantTags(ctx.facts)).length > 0) {
      await aws(
        at(ctx.facts, "firehose:TagDeliveryStream"),
        () =>
          ctx.clients.firehose.send(
            new TagDeliveryStreamCommand({
              DeliveryStreamName: ctx.facts.names.stream,
              Tags: tagList(wantTags(ctx.facts)),
            }),
          ),
      );
    }
    return outputs(ctx.facts, await waitActive(ctx));
  },
  async delete(ctx) {
    await awsMaybe(
      at(ctx.facts, "firehose:DeleteDeliveryStream"),
      () =>
        ctx.clients.firehose.send(
          new DeleteDeliveryStreamCommand({ DeliveryStreamName: ctx.facts.names.stream }),
        ),
    );
  },
};
