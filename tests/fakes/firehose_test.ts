import assert from "node:assert/strict";
import {
  CreateDeliveryStreamCommand,
  DeleteDeliveryStreamCommand,
  DescribeDeliveryStreamCommand,
  FirehoseClient,
  ListTagsForDeliveryStreamCommand,
  UpdateDestinationCommand,
} from "@aws-sdk/client-firehose";
import { testAwsConfig } from "../support/s3.ts";
import { FIREHOSE_DESTINATION_ID, startFirehoseFake } from "./firehose.ts";

const ROLE = "arn:aws:iam::123456789012:role/firehose";

Deno.test("firehose fake: Iceberg stream create, CREATING then ACTIVE, update with version check, delete", async () => {
  let assumable = false;
  await using fake = startFirehoseFake({ roleAssumable: () => assumable });
  const client = new FirehoseClient({ ...testAwsConfig, endpoint: fake.endpoint, maxAttempts: 1 });
  try {
    const create = new CreateDeliveryStreamCommand({
      DeliveryStreamName: "prod-blog-analytics",
      DeliveryStreamType: "DirectPut",
      IcebergDestinationConfiguration: {
        RoleARN: ROLE,
        CatalogConfiguration: {
          CatalogARN: "arn:aws:glue:us-east-1:123456789012:catalog/s3tablescatalog/b",
        },
        DestinationTableConfigurationList: [{
          DestinationDatabaseName: "web",
          DestinationTableName: "page_views",
        }],
        S3Configuration: { RoleARN: ROLE, BucketARN: "arn:aws:s3:::errors" },
      },
      Tags: [{ Key: "LogDeliveryEnabled", Value: "true" }],
    });
    await assert.rejects(client.send(create), { name: "InvalidArgumentException" });
    assumable = true;
    const { DeliveryStreamARN } = await client.send(create);
    assert.equal(
      DeliveryStreamARN,
      "arn:aws:firehose:us-east-1:123456789012:deliverystream/prod-blog-analytics",
    );
    await assert.rejects(client.send(create), { name: "ResourceInUseException" });
    const describe = new DescribeDeliveryStreamCommand({
      DeliveryStreamName: "prod-blog-analytics",
    });
    const first = (await client.send(describe)).DeliveryStreamDescription!;
    assert.equal(first.DeliveryStreamStatus, "CREATING");
    const second = (await client.send(describe)).DeliveryStreamDescription!;
    assert.equal(second.DeliveryStreamStatus, "ACTIVE");
    const dest = second.Destinations![0]!;
    assert.equal(dest.DestinationId, FIREHOSE_DESTINATION_ID);
    assert.equal(
      dest.IcebergDestinationDescription?.S3DestinationDescription?.BucketARN,
      "arn:aws:s3:::errors",
    );
    assert.ok(second.CreateTimestamp instanceof Date);

    const update = (version: string) =>
      new UpdateDestinationCommand({
        DeliveryStreamName: "prod-blog-analytics",
        CurrentDeliveryStreamVersionId: version,
        DestinationId: FIREHOSE_DESTINATION_ID,
        IcebergDestinationUpdate: { BufferingHints: { IntervalInSeconds: 300 } },
      });
    await assert.rejects(client.send(update("7")), { name: "ConcurrentModificationException" });
    await client.send(update(second.VersionId!));
    const third = (await client.send(describe)).DeliveryStreamDescription!;
    assert.equal(third.VersionId, "2");
    assert.equal(
      third.Destinations![0]!.IcebergDestinationDescription?.BufferingHints?.IntervalInSeconds,
      300,
    );

    const tags = await client.send(
      new ListTagsForDeliveryStreamCommand({ DeliveryStreamName: "prod-blog-analytics" }),
    );
    assert.deepEqual(tags.Tags, [{ Key: "LogDeliveryEnabled", Value: "true" }]);
    await client.send(
      new DeleteDeliveryStreamCommand({ DeliveryStreamName: "prod-blog-analytics" }),
    );
    await assert.rejects(client.send(describe), { name: "ResourceNotFoundException" });
  } finally {
    client.destroy();
  }
});
