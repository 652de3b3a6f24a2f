/**
 * The two log groups: the builder's (`retention.microvmDays`, in the site's region) and the
 * CDN access-log group (`retention.cloudfrontDays`, always in us-east-1).
 *
 * @module
 */
import { microvmBuilderWanted } from "../microvm_wanted.ts";
import {
  type CloudWatchLogsClient,
  CreateLogGroupCommand,
  DeleteLogGroupCommand,
  DescribeLogGroupsCommand,
  PutRetentionPolicyCommand,
} from "@aws-sdk/client-cloudwatch-logs";
import { CDN_REGION } from "../../config/names.ts";
import { aws, awsMaybe } from "../../aws/errors.ts";
import type { AwsClients } from "../../aws/clients.ts";
import type { NodeContext, NodeId, ResourceNode, SiteFacts } from "../resource.ts";

/** The retention periods CloudWatch Logs accepts, in days. */
export const LOG_RETENTION_DAYS: readonly number[] = [
  1,
  3,
  5,
  7,
  14,
  30,
  60,
  90,
  120,
  150,
  180,
  365,
  400,
  545,
  731,
  1096,
  1827,
  2192,
  2557,
  2922,
  3288,
  3653,
];

/**
 * The retention CloudWatch will store for a configured number of days (pure): the smallest
 * accepted value at least as long, so logs are never dropped earlier than configured; past
 * the longest, the longest.
 *
 * @param days configured days (positive)
 * @returns an accepted retention
 *
 * @example
 * ```ts
 * logRetentionDays(100); // 120
 * ```
 */
export function logRetentionDays(days: number): number {
  return LOG_RETENTION_DAYS.find((d) => d >= days) ?? LOG_RETENTION_DAYS.at(-1)!;
}

/** The desired description of one log group (pure). */
export interface LogGroupSpec {
  name: string;
  region: string;
  retentionDays: number;
  tags: Readonly<Record<string, string>>;
}

/**
 * The builder log group's description.
 *
 * @param facts the site
 * @returns name, region, retention and tags
 */
export function builderLogGroupSpec(facts: SiteFacts): LogGroupSpec {
  return {
    name: facts.builderLogGroup,
    region: facts.config.region,
    retentionDays: logRetentionDays(facts.config.retention.microvmDays),
    tags: facts.tags,
  };
}

/**
 * The CDN access-log group's description.
 *
 * @param facts the site
 * @returns name, region (us-east-1), retention and tags
 */
export function cdnLogGroupSpec(facts: SiteFacts): LogGroupSpec {
  return {
    name: facts.cdnLogGroup,
    region: CDN_REGION,
    retentionDays: logRetentionDays(facts.config.retention.cloudfrontDays),
    tags: facts.tags,
  };
}

/**
 * A log group node: created with its tags, its retention kept as described, deleted on destroy.
 * Generic over the facts, clients and ids, so a plugin's log groups are the same node.
 *
 * @param id the node id
 * @param specOf the group's description from the facts (pure)
 * @param clientOf the CloudWatch Logs client for the group's region
 * @param wanted whether the site wants the group (default: always)
 * @returns the node
 *
 * @example
 * ```ts
 * const node = logGroupNode("streamLogGroup", (f) => ({
 *   name: `/${f.config.siteName}/${f.env}/stream`,
 *   region: f.config.region,
 *   retentionDays: 30,
 *   tags: f.tags,
 * }), (ctx) => ctx.clients.logs);
 * ```
 */
export function logGroupNode<F = SiteFacts, C = AwsClients, Id extends string = NodeId>(
  id: Id,
  specOf: (facts: F) => LogGroupSpec,
  clientOf: (ctx: NodeContext<F, C, Id>) => CloudWatchLogsClient,
  wanted: (facts: F) => boolean = () => true,
): ResourceNode<F, C, Id> {
  type Ctx = NodeContext<F, C, Id>;
  const resource = (spec: LogGroupSpec) => `log group ${spec.name} (${spec.region})`;
  const outputs = (spec: LogGroupSpec) => ({
    name: spec.name,
    region: spec.region,
    retentionDays: spec.retentionDays,
  });
  const setRetention = async (ctx: Ctx, spec: LogGroupSpec) => {
    await aws(
      { resource: resource(spec), action: "logs:PutRetentionPolicy" },
      () =>
        clientOf(ctx).send(
          new PutRetentionPolicyCommand({
            logGroupName: spec.name,
            retentionInDays: spec.retentionDays,
          }),
        ),
    );
  };
  return {
    id,
    dependsOn: [],
    wanted,
    label: (facts) => resource(specOf(facts)),
    async read(ctx) {
      const spec = specOf(ctx.facts);
      const out = await aws(
        { resource: resource(spec), action: "logs:DescribeLogGroups" },
        () => clientOf(ctx).send(new DescribeLogGroupsCommand({ logGroupNamePrefix: spec.name })),
      );
      const group = out.logGroups?.find((g) => g.logGroupName === spec.name);
      if (!group) return null;
      const drift = group.retentionInDays === spec.retentionDays ? [] : [
        `retention ${group.retentionInDays ?? "never expires"}, want ${spec.retentionDays} days`,
      ];
      return { outputs: outputs(spec), drift };
    },
    async create(ctx) {
      const spec = specOf(ctx.facts);
      await aws({ resource: resource(spec), action: "logs:CreateLogGroup" }, async () => {
        try {
          await clientOf(ctx).send(
            new CreateLogGroupCommand({ logGroupName: spec.name, tags: { ...spec.tags } }),
          );
        } catch (err) {
          // Created by a run that crashed between the read and here: adopt it.
          if ((err as Error).name !== "ResourceAlreadyExistsException") throw err;
        }
      });
      await setRetention(ctx, spec);
      return outputs(spec);
    },
    async update(ctx, live) {
      const spec = specOf(ctx.facts);
      await setRetention(ctx, spec);
      return { ...live.outputs, ...outputs(spec) };
    },
    async delete(ctx) {
      const spec = specOf(ctx.facts);
      await awsMaybe(
        { resource: resource(spec), action: "logs:DeleteLogGroup" },
        () => clientOf(ctx).send(new DeleteLogGroupCommand({ logGroupName: spec.name })),
      );
    },
  };
}

/** The builder log group node (site region). */
export const builderLogGroupNode: ResourceNode = logGroupNode(
  "builderLogGroup",
  builderLogGroupSpec,
  (ctx) => ctx.clients.logs,
  microvmBuilderWanted,
);

/** The CDN access-log group node (us-east-1). */
export const cdnLogGroupNode: ResourceNode = logGroupNode(
  "cdnLogGroup",
  cdnLogGroupSpec,
  (ctx) => ctx.clients.cdnLogs,
);
