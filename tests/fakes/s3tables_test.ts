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
import { s3TablesCatalog } from "../../analytics/pipeline/iceberg_catalog.ts";
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

Deno.test("s3tables fake: the Iceberg catalog loads a table's schema and commits a guarded schema update", async () => {
  await using fake = startS3TablesFake();
  const client = new S3TablesClient({ ...testAwsConfig, endpoint: fake.endpoint, maxAttempts: 1 });
  try {
    const { arn } = await client.send(
      new CreateTableBucketCommand({ name: "prod-blog-analytics" }),
    );
    await client.send(new CreateNamespaceCommand({ tableBucketARN: arn, namespace: ["web"] }));
    await client.send(
      new CreateTableCommand({
        tableBucketARN: arn,
        namespace: "web",
        name: "page_views",
        format: "ICEBERG",
        metadata: {
          iceberg: {
            schema: {
              fields: [
                { id: 1, name: "event_time", type: "timestamptz", required: true },
                { id: 2, name: "uri", type: "string", required: true },
              ],
            },
          },
        },
      }),
    );
    const catalog = s3TablesCatalog(client, arn!);
    const loaded = await catalog.loadTable("web", "page_views");
    assert.equal(loaded["current-schema-id"], 0);
    assert.equal(loaded["last-column-id"], 2);
    assert.deepEqual(loaded.schemas[0]!.fields.map((f) => f.name), ["event_time", "uri"]);
    const [call] = fake.callsOf("LoadTable");
    assert.equal(call!.region, "us-east-1", "signed with SigV4 for the bucket's region");
    assert.equal(call!.input.prefix, arn, "the prefix is the URL-encoded table bucket ARN");

    const commit = {
      requirements: [
        { type: "assert-table-uuid" as const, uuid: loaded["table-uuid"] },
        { type: "assert-current-schema-id" as const, "current-schema-id": 0 },
      ],
      updates: [
        {
          action: "add-schema" as const,
          schema: {
            type: "struct" as const,
            "schema-id": 1,
            fields: [
              ...loaded.schemas[0]!.fields,
              { id: 3, name: "browser", type: "string", required: false },
            ],
          },
        },
        { action: "set-current-schema" as const, "schema-id": -1 },
      ],
    };
    const after = await catalog.commitTable("web", "page_views", commit);
    assert.equal(after["current-schema-id"], 1);
    assert.equal(after["last-column-id"], 3);
    assert.deepEqual(after.schemas.map((s) => s["schema-id"]), [0, 1], "the old schema is kept");
    assert.deepEqual(
      (await catalog.loadTable("web", "page_views")).schemas[1]!.fields.map((f) => f.name),
      ["event_time", "uri", "browser"],
    );

    // The same commit again: the schema it was based on is no longer current.
    await assert.rejects(catalog.commitTable("web", "page_views", commit), {
      name: "CommitFailedException",
      $metadata: { httpStatusCode: 409 },
    });
    await assert.rejects(
      catalog.commitTable("web", "page_views", {
        requirements: [],
        updates: [{ action: "set-current-schema", "schema-id": 7 }],
      }),
      { name: "BadRequestException" },
    );
    assert.equal((await catalog.loadTable("web", "page_views"))["current-schema-id"], 1);
    await assert.rejects(catalog.loadTable("web", "nope"), {
      name: "NoSuchTableException",
      $metadata: { httpStatusCode: 404 },
    });
  } finally {
    client.destroy();
  }
});
