/**
 * The Iceberg page-view table (`analytics.table`, us-east-1): the columns of
 * `transform/row.ts`, partitioned by the UTC day. Its schema is set at creation; the live read
 * checks the format and tags (S3 Tables does not return the schema, which lives in the table's
 * Iceberg metadata).
 *
 * @module
 */
import {
  CreateTableCommand,
  DeleteTableCommand,
  GetTableCommand,
  type IcebergMetadata,
  ListTagsForResourceCommand,
  TagResourceCommand,
} from "@aws-sdk/client-s3tables";
import { aws, awsErrorCode, awsMaybe, type NodeOutputs, tagDrift } from "@org/deploy/plugin";
import { PARTITION_COLUMN, ROW_COLUMNS } from "../../transform/row.ts";
import type { AnalyticsContext, AnalyticsFacts, AnalyticsNode } from "../facts.ts";
import { ANALYTICS_REGION } from "../names.ts";

/** The table format. */
export const TABLE_FORMAT = "ICEBERG";

/**
 * The table's Iceberg metadata (pure): one field per row column, numbered from 1, and an
 * identity partition on `day`.
 *
 * @returns the metadata `CreateTable` takes
 */
export function tableMetadata(): IcebergMetadata {
  const fields = ROW_COLUMNS.map((c, i) => ({
    id: i + 1,
    name: c.name,
    type: c.type,
    required: c.required,
  }));
  const day = fields.find((f) => f.name === PARTITION_COLUMN)!;
  return {
    schema: { fields },
    partitionSpec: {
      fields: [{ sourceId: day.id, transform: "identity", name: PARTITION_COLUMN }],
    },
  };
}

const label = (facts: AnalyticsFacts) =>
  `table ${facts.names.tableBucket}/${facts.names.namespace}.${facts.names.table} (${ANALYTICS_REGION})`;
const at = (facts: AnalyticsFacts, action: string) => ({ resource: label(facts), action });

async function getTable(ctx: AnalyticsContext) {
  const { names } = ctx.facts;
  return await awsMaybe(
    at(ctx.facts, "s3tables:GetTable"),
    () =>
      ctx.clients.s3tables.send(
        new GetTableCommand({
          tableBucketARN: names.tableBucketArn,
          namespace: names.namespace,
          name: names.table,
        }),
      ),
  );
}

function outputs(facts: AnalyticsFacts, arn: string): NodeOutputs {
  return { name: facts.names.table, arn };
}

async function putTags(ctx: AnalyticsContext, arn: string): Promise<void> {
  await aws(
    at(ctx.facts, "s3tables:TagResource"),
    () =>
      ctx.clients.s3tables.send(
        new TagResourceCommand({ resourceArn: arn, tags: { ...ctx.facts.tags } }),
      ),
  );
}

/** The table node. */
export const tableNode: AnalyticsNode = {
  id: "table",
  dependsOn: ["namespace"],
  wanted: () => true,
  label,
  async read(ctx) {
    const table = await getTable(ctx);
    if (!table?.tableARN) return null;
    const arn = table.tableARN;
    const tags = await aws(
      at(ctx.facts, "s3tables:ListTagsForResource"),
      () => ctx.clients.s3tables.send(new ListTagsForResourceCommand({ resourceArn: arn })),
    );
    const drift = tagDrift(tags.tags ?? {}, ctx.facts.tags);
    if (table.format !== TABLE_FORMAT) {
      drift.unshift(
        `format ${table.format}, want ${TABLE_FORMAT} (delete the table to recreate it)`,
      );
    }
    return { outputs: outputs(ctx.facts, arn), drift };
  },
  async create(ctx) {
    const { names } = ctx.facts;
    let arn: string | undefined;
    await aws(at(ctx.facts, "s3tables:CreateTable"), async () => {
      try {
        const out = await ctx.clients.s3tables.send(
          new CreateTableCommand({
            tableBucketARN: names.tableBucketArn,
            namespace: names.namespace,
            name: names.table,
            format: TABLE_FORMAT,
            metadata: { iceberg: tableMetadata() },
            tags: { ...ctx.facts.tags },
          }),
        );
        arn = out.tableARN;
      } catch (err) {
        if (awsErrorCode(err) !== "ConflictException") throw err;
        // A crashed run created it: adopt it.
        arn = (await getTable(ctx))?.tableARN;
        if (arn) await putTags(ctx, arn);
      }
    });
    return outputs(ctx.facts, arn ?? "");
  },
  async update(ctx, live) {
    await putTags(ctx, String(live.outputs.arn));
    return live.outputs;
  },
  async delete(ctx) {
    const { names } = ctx.facts;
    await awsMaybe(
      at(ctx.facts, "s3tables:DeleteTable"),
      () =>
        ctx.clients.s3tables.send(
          new DeleteTableCommand({
            tableBucketARN: names.tableBucketArn,
            namespace: names.namespace,
            name: names.table,
          }),
        ),
    );
  },
};
