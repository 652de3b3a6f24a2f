/**
 * The page-view table as the first release created it (its first 20 columns, schema 0), for the
 * schema evolution tests on our fake and on ministack.
 *
 * @module
 */
import {
  CreateNamespaceCommand,
  CreateTableBucketCommand,
  CreateTableCommand,
  type S3TablesClient,
} from "@aws-sdk/client-s3tables";
import { tableMetadata } from "../../analytics/pipeline/nodes/table.ts";
import { ROW_COLUMNS } from "../../analytics/transform/row.ts";

/** The first release's columns. */
export const FIRST_RELEASE_COLUMNS = ROW_COLUMNS.slice(0, 20);

/** The columns schema evolution added since. */
export const ADDED_COLUMNS: readonly string[] = ROW_COLUMNS.slice(FIRST_RELEASE_COLUMNS.length)
  .map((c) => c.name);

/**
 * Creates `production-blog-analytics` / `web` / `page_views` with the first release's columns.
 *
 * @param client an S3 Tables client (fake or emulator)
 * @returns the table bucket's ARN
 */
export async function createFirstReleaseTable(client: S3TablesClient): Promise<string> {
  const { arn } = await client.send(
    new CreateTableBucketCommand({ name: "production-blog-analytics" }),
  );
  await client.send(new CreateNamespaceCommand({ tableBucketARN: arn, namespace: ["web"] }));
  const meta = tableMetadata();
  const fields = meta.schema!.fields!.slice(0, FIRST_RELEASE_COLUMNS.length);
  await client.send(
    new CreateTableCommand({
      tableBucketARN: arn,
      namespace: "web",
      name: "page_views",
      format: "ICEBERG",
      metadata: { iceberg: { ...meta, schema: { fields } } },
    }),
  );
  return arn!;
}
