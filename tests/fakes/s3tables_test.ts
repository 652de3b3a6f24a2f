import assert from "node:assert/strict";
import {
  CreateNamespaceCommand,
  CreateTableBucketCommand,
  CreateTableCommand,
  DeleteNamespaceCommand,
  DeleteTableBucketCommand,
  DeleteTableCommand,
  GetNamespaceCommand,
  GetTableBucketCommand,
  GetTableCommand,
  ListTableBucketsCommand,
  ListTagsForResourceCommand,
  S3TablesClient,
  TagResourceCommand,
} from "@aws-sdk/client-s3tables";
import { testAwsConfig } from "../support/s3.ts";
import { startS3TablesFake } from "./s3tables.ts";

Deno.test("s3tables fake: bucket, namespace and table lifecycle with conflicts and not-founds", async () => {
  await using fake = startS3TablesFake();
  const client = new S3TablesClient({ ...testAwsConfig, endpoint: fake.endpoint, maxAttempts: 1 });
  try {
    const { arn } = await client.send(
      new CreateTableBucketCommand({ name: "prod-blog-analytics", tags: { app: "blog" } }),
    );
    assert.equal(arn, "arn:aws:s3tables:us-east-1:123456789012:bucket/prod-blog-analytics");
    await assert.rejects(
      client.send(new CreateTableBucketCommand({ name: "prod-blog-analytics" })),
      { name: "ConflictException" },
    );
    const got = await client.send(new GetTableBucketCommand({ tableBucketARN: arn }));
    assert.equal(got.name, "prod-blog-analytics");
    assert.ok(got.createdAt instanceof Date);
    const listed = await client.send(new ListTableBucketsCommand({ prefix: "prod-" }));
    assert.deepEqual(listed.tableBuckets?.map((b) => b.arn), [arn]);

    await client.send(new CreateNamespaceCommand({ tableBucketARN: arn, namespace: ["web"] }));
    await assert.rejects(
      client.send(new CreateNamespaceCommand({ tableBucketARN: arn, namespace: ["web"] })),
      { name: "ConflictException" },
    );
    const ns = await client.send(
      new GetNamespaceCommand({ tableBucketARN: arn, namespace: "web" }),
    );
    assert.deepEqual(ns.namespace, ["web"]);

    const table = await client.send(
      new CreateTableCommand({
        tableBucketARN: arn,
        namespace: "web",
        name: "page_views",
        format: "ICEBERG",
        metadata: {
          iceberg: {
            schema: { fields: [{ name: "day", type: "date", required: true }] },
            partitionSpec: { fields: [{ sourceId: 1, transform: "identity", name: "day" }] },
          },
        },
      }),
    );
    const read = await client.send(
      new GetTableCommand({ tableBucketARN: arn, namespace: "web", name: "page_views" }),
    );
    assert.equal(read.tableARN, table.tableARN);
    assert.equal(read.format, "ICEBERG");
    // On the wire, Iceberg's own member names (`source-id`).
    const stored = fake.state.buckets.get(arn)!.namespaces.get("web")!.get("page_views")!;
    assert.deepEqual(stored.metadata, {
      iceberg: {
        schema: { fields: [{ name: "day", type: "date", required: true }] },
        partitionSpec: { fields: [{ "source-id": 1, transform: "identity", name: "day" }] },
      },
    });

    await client.send(new TagResourceCommand({ resourceArn: arn, tags: { environment: "p" } }));
    const tags = await client.send(new ListTagsForResourceCommand({ resourceArn: arn }));
    assert.deepEqual(tags.tags, { app: "blog", environment: "p" });

    await assert.rejects(
      client.send(new DeleteTableBucketCommand({ tableBucketARN: arn })),
      { name: "ConflictException" },
    );
    await assert.rejects(
      client.send(new DeleteNamespaceCommand({ tableBucketARN: arn, namespace: "web" })),
      { name: "ConflictException" },
    );
    await client.send(
      new DeleteTableCommand({ tableBucketARN: arn, namespace: "web", name: "page_views" }),
    );
    await assert.rejects(
      client.send(
        new GetTableCommand({ tableBucketARN: arn, namespace: "web", name: "page_views" }),
      ),
      { name: "NotFoundException" },
    );
    await client.send(new DeleteNamespaceCommand({ tableBucketARN: arn, namespace: "web" }));
    await client.send(new DeleteTableBucketCommand({ tableBucketARN: arn }));
    await assert.rejects(
      client.send(new GetTableBucketCommand({ tableBucketARN: arn })),
      { name: "NotFoundException" },
    );
  } finally {
    client.destroy();
  }
});
