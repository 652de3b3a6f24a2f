/**
 * The S3 table bucket holding the page-view table (`analytics.tableBucket`, us-east-1).
 *
 * @module
 */
import {
  CreateTableBucketCommand,
  DeleteTableBucketCommand,
  GetTableBucketCommand,
  ListTagsForResourceCommand,
  TagResourceCommand,
} from "@aws-sdk/client-s3tables";
import { aws, awsErrorCode, awsMaybe, type NodeOutputs, tagDrift } from "@org/deploy/plugin";
import type { AnalyticsContext, AnalyticsFacts, AnalyticsNode } from "../facts.ts";
import { ANALYTICS_REGION } from "../names.ts";

const label = (facts: AnalyticsFacts) =>
  `table bucket ${facts.names.tableBucket} (${ANALYTICS_REGION})`;
const at = (facts: AnalyticsFacts, action: string) => ({ resource: label(facts), action });

function outputs(facts: AnalyticsFacts): NodeOutputs {
  return { name: facts.names.tableBucket, arn: facts.names.tableBucketArn };
}

async function liveTags(ctx: AnalyticsContext): Promise<Record<string, string>> {
  const out = await aws(
    at(ctx.facts, "s3tables:ListTagsForResource"),
    () =>
      ctx.clients.s3tables.send(
        new ListTagsForResourceCommand({ resourceArn: ctx.facts.names.tableBucketArn }),
      ),
  );
  return out.tags ?? {};
}

async function putTags(ctx: AnalyticsContext): Promise<void> {
  await aws(
    at(ctx.facts, "s3tables:TagResource"),
    () =>
      ctx.clients.s3tables.send(
        new TagResourceCommand({
          resourceArn: ctx.facts.names.tableBucketArn,
          tags: { ...ctx.facts.tags },
        }),
      ),
  );
}

/** The table bucket node. */
export const tableBucketNode: AnalyticsNode = {
  id: "tableBucket",
  dependsOn: [],
  wanted: () => true,
  label,
  async read(ctx) {
    const found = await awsMaybe(
      at(ctx.facts, "s3tables:GetTableBucket"),
      () =>
        ctx.clients.s3tables.send(
          new GetTableBucketCommand({ tableBucketARN: ctx.facts.names.tableBucketArn }),
        ),
    );
    if (!found) return null;
    return { outputs: outputs(ctx.facts), drift: tagDrift(await liveTags(ctx), ctx.facts.tags) };
  },
  async create(ctx) {
    await aws(at(ctx.facts, "s3tables:CreateTableBucket"), async () => {
      try {
        await ctx.clients.s3tables.send(
          new CreateTableBucketCommand({ name: ctx.facts.names.tableBucket, tags: ctx.facts.tags }),
        );
      } catch (err) {
        // Table bucket names are per account and region: a conflict is ours (a crashed run's).
        if (awsErrorCode(err) !== "ConflictException") throw err;
        await putTags(ctx);
      }
    });
    return outputs(ctx.facts);
  },
  async update(ctx) {
    await putTags(ctx);
    return outputs(ctx.facts);
  },
  async delete(ctx) {
    await awsMaybe(
      at(ctx.facts, "s3tables:DeleteTableBucket"),
      () =>
        ctx.clients.s3tables.send(
          new DeleteTableBucketCommand({ tableBucketARN: ctx.facts.names.tableBucketArn }),
        ),
    );
  },
};
