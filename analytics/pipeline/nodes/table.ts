/**
 * The Iceberg page-view table (`analytics.table`, us-east-1): the columns of
 * `transform/row.ts`, partitioned by the UTC day. Its schema is set at creation and evolved
 * after: the live read loads the Iceberg metadata through the S3 Tables Iceberg REST catalog
 * (the S3 Tables API does not return the schema) and reports the columns a table made by an
 * older release lacks; bootstrap adds them with one schema commit (no data rewritten, older
 * rows read them as null). Its outputs carry the schema id (the table's schema version).
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
import { type IcebergTableMetadata, s3TablesCatalog } from "../iceberg_catalog.ts";
import { ANALYTICS_REGION } from "../names.ts";
import { addColumnsCommit, schemaStatus } from "../table_schema.ts";

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

function catalog(ctx: Pick<AnalyticsContext, "clients" | "facts">) {
  return s3TablesCatalog(ctx.clients.s3tables, ctx.facts.names.tableBucketArn);
}

/**
 * Loads the table's Iceberg metadata through the S3 Tables catalog (its schemas, the current
 * schema id), for the node and for commands that must know the schema before writing.
 *
 * @param ctx the pipeline's clients and facts
 * @returns the metadata
 * @throws {DeployError} mapped like every AWS call (`aws_access_denied`, …)
 */
export async function loadTableMetadata(
  ctx: Pick<AnalyticsContext, "clients" | "facts">,
): Promise<IcebergTableMetadata> {
  const { names } = ctx.facts;
  return await aws(
    at(ctx.facts, "s3tables:GetTableMetadataLocation"),
    () => catalog(ctx).loadTable(names.namespace, names.table),
  );
}

/**
 * The node's outputs: name, ARN, and the schema version (`schemaId`, Iceberg's
 * `current-schema-id`) with whether it holds every column the transform writes.
 */
function outputs(facts: AnalyticsFacts, arn: string, metadata: IcebergTableMetadata): NodeOutputs {
  const schema = schemaStatus(metadata);
  return {
    name: facts.names.table,
    arn,
    schemaId: schema.id,
    schemaCurrent: schema.missing.length === 0,
  };
}

/** The drift line for missing columns (pure). */
function schemaDrift(metadata: IcebergTableMetadata): string[] {
  const { id, missing } = schemaStatus(metadata);
  return missing.length === 0 ? [] : [
    `schema ${id} lacks ${missing.length} column(s): ${missing.join(", ")} (bootstrap adds ` +
    "them; no data is rewritten)",
  ];
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

/**
 * Adds the columns the table lacks, in one Iceberg commit guarded by the schema it read; a
 * table that has them all is left alone.
 */
async function evolveSchema(ctx: AnalyticsContext): Promise<IcebergTableMetadata> {
  const { names } = ctx.facts;
  const metadata = await loadTableMetadata(ctx);
  const commit = addColumnsCommit(metadata);
  if (commit === null) return metadata;
  const after = await aws(
    at(ctx.facts, "s3tables:UpdateTableMetadataLocation"),
    () => catalog(ctx).commitTable(names.namespace, names.table, commit),
  );
  ctx.note(
    `${label(ctx.facts)}: schema ${metadata["current-schema-id"]} → ` +
      `${after["current-schema-id"]}, added ${schemaStatus(metadata).missing.join(", ")}`,
  );
  return after;
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
      return { outputs: { name: ctx.facts.names.table, arn }, drift };
    }
    const metadata = await loadTableMetadata(ctx);
    drift.unshift(...schemaDrift(metadata));
    return { outputs: outputs(ctx.facts, arn, metadata), drift };
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
    // An adopted table may be an older release's: evolve it as update would.
    return outputs(ctx.facts, arn ?? "", await evolveSchema(ctx));
  },
  async update(ctx, live) {
    const arn = String(live.outputs.arn);
    await putTags(ctx, arn);
    return outputs(ctx.facts, arn, await evolveSchema(ctx));
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
