import assert from "node:assert/strict";
import {
  CloudWatchLogsClient,
  CreateDeliveryCommand,
  CreateLogGroupCommand,
  CreateLogStreamCommand,
  DeleteDeliveryCommand,
  DeleteDeliveryDestinationCommand,
  DeleteDeliverySourceCommand,
  DeleteLogGroupCommand,
  DescribeDeliveriesCommand,
  DescribeDeliverySourcesCommand,
  DescribeLogGroupsCommand,
  DescribeLogStreamsCommand,
  FilterLogEventsCommand,
  GetDeliverySourceCommand,
  GetLogEventsCommand,
  ListTagsForResourceCommand,
  PutDeliveryDestinationCommand,
  PutDeliverySourceCommand,
  PutLogEventsCommand,
  PutRetentionPolicyCommand,
  TagResourceCommand,
} from "@aws-sdk/client-cloudwatch-logs";
import { testAwsConfig } from "../support/s3.ts";
import { startLogsFake } from "./logs.ts";

Deno.test("logs fake: log group create, describe by prefix, retention, tags, delete", async () => {
  await using logs = startLogsFake({ region: "eu-west-1" });
  const client = new CloudWatchLogsClient({
    ...testAwsConfig,
    endpoint: logs.endpoint,
    maxAttempts: 1,
  });
  try {
    await client.send(
      new CreateLogGroupCommand({ logGroupName: "/site/prod/builder", tags: { app: "site" } }),
    );
    await client.send(new CreateLogGroupCommand({ logGroupName: "/other" }));
    await assert.rejects(
      client.send(new CreateLogGroupCommand({ logGroupName: "/site/prod/builder" })),
      {
        name: "ResourceAlreadyExistsException",
      },
    );
    await client.send(
      new PutRetentionPolicyCommand({ logGroupName: "/site/prod/builder", retentionInDays: 14 }),
    );
    await assert.rejects(
      client.send(
        new PutRetentionPolicyCommand({ logGroupName: "/site/prod/builder", retentionInDays: 2 }),
      ),
      { name: "InvalidParameterException" },
    );
    const found = await client.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: "/site/" }));
    assert.equal(found.logGroups?.length, 1);
    const group = found.logGroups![0]!;
    assert.equal(group.logGroupName, "/site/prod/builder");
    assert.equal(group.retentionInDays, 14);
    assert.equal(
      group.logGroupArn,
      "arn:aws:logs:eu-west-1:123456789012:log-group:/site/prod/builder",
    );
    await client.send(
      new TagResourceCommand({ resourceArn: group.logGroupArn, tags: { environment: "prod" } }),
    );
    const tags = await client.send(
      new ListTagsForResourceCommand({ resourceArn: group.logGroupArn }),
    );
    assert.deepEqual(tags.tags, { app: "site", environment: "prod" });
    await client.send(new DeleteLogGroupCommand({ logGroupName: "/site/prod/builder" }));
    await assert.rejects(
      client.send(new DeleteLogGroupCommand({ logGroupName: "/site/prod/builder" })),
      {
        name: "ResourceNotFoundException",
      },
    );
    assert.deepEqual([...logs.state.groups.keys()], ["/other"]);
  } finally {
    client.destroy();
  }
});

Deno.test("logs fake: streams, put, get with forward tokens and filter", async () => {
  let t = 1_000;
  await using logs = startLogsFake({ now: () => t++ });
  const client = new CloudWatchLogsClient({
    ...testAwsConfig,
    endpoint: logs.endpoint,
    maxAttempts: 1,
  });
  try {
    const g = "/site/prod/builder";
    await client.send(new CreateLogGroupCommand({ logGroupName: g }));
    await assert.rejects(
      client.send(new CreateLogStreamCommand({ logGroupName: "/missing", logStreamName: "s" })),
      {
        name: "ResourceNotFoundException",
      },
    );
    await client.send(new CreateLogStreamCommand({ logGroupName: g, logStreamName: "build-1" }));
    await client.send(
      new PutLogEventsCommand({
        logGroupName: g,
        logStreamName: "build-1",
        logEvents: [{ timestamp: 10, message: "install" }, { timestamp: 11, message: "build" }],
      }),
    );
    const first = await client.send(
      new GetLogEventsCommand({ logGroupName: g, logStreamName: "build-1", startFromHead: true }),
    );
    assert.deepEqual(first.events?.map((e) => e.message), ["install", "build"]);
    const idle = await client.send(
      new GetLogEventsCommand({
        logGroupName: g,
        logStreamName: "build-1",
        nextToken: first.nextForwardToken,
      }),
    );
    assert.deepEqual(idle.events, []);
    assert.equal(idle.nextForwardToken, first.nextForwardToken);
    logs.state.append(g, "build-1", ["build:done:1"]);
    const more = await client.send(
      new GetLogEventsCommand({
        logGroupName: g,
        logStreamName: "build-1",
        nextToken: idle.nextForwardToken,
      }),
    );
    assert.deepEqual(more.events?.map((e) => e.message), ["build:done:1"]);
    const streams = await client.send(
      new DescribeLogStreamsCommand({ logGroupName: g, logStreamNamePrefix: "build-" }),
    );
    assert.equal(streams.logStreams?.[0]?.logStreamName, "build-1");
    assert.equal(streams.logStreams?.[0]?.firstEventTimestamp, 10);
    const filtered = await client.send(
      new FilterLogEventsCommand({ logGroupName: g, filterPattern: '"build:done"' }),
    );
    assert.deepEqual(filtered.events?.map((e) => [e.logStreamName, e.message]), [[
      "build-1",
      "build:done:1",
    ]]);
    await assert.rejects(
      client.send(
        new PutLogEventsCommand({
          logGroupName: g,
          logStreamName: "build-1",
          logEvents: [{ timestamp: 20, message: "b" }, { timestamp: 19, message: "a" }],
        }),
      ),
      { name: "InvalidParameterException" },
    );
  } finally {
    client.destroy();
  }
});

Deno.test("logs fake: an injected throttle surfaces as ThrottlingException", async () => {
  await using logs = startLogsFake();
  const client = new CloudWatchLogsClient({
    ...testAwsConfig,
    endpoint: logs.endpoint,
    maxAttempts: 1,
  });
  try {
    logs.fail("DescribeLogGroups", {
      code: "ThrottlingException",
      status: 400,
      message: "Rate exceeded",
    });
    await assert.rejects(client.send(new DescribeLogGroupsCommand({})), {
      name: "ThrottlingException",
    });
    assert.deepEqual((await client.send(new DescribeLogGroupsCommand({}))).logGroups, []);
    assert.equal(logs.callsOf("DescribeLogGroups").length, 2);
  } finally {
    client.destroy();
  }
});

Deno.test("logs fake: vended log delivery pairs a source and a log-group destination; in-use parts cannot go", async () => {
  await using logs = startLogsFake({ region: "us-east-1" });
  const client = new CloudWatchLogsClient({
    ...testAwsConfig,
    endpoint: logs.endpoint,
    maxAttempts: 1,
  });
  const dist = "arn:aws:cloudfront::123456789012:distribution/E1";
  try {
    await assert.rejects(
      client.send(new GetDeliverySourceCommand({ name: "s" })),
      { name: "ResourceNotFoundException" },
    );
    await client.send(
      new PutDeliverySourceCommand({ name: "s", resourceArn: dist, logType: "ACCESS_LOGS" }),
    );
    await assert.rejects(
      client.send(
        new PutDeliverySourceCommand({
          name: "s",
          resourceArn: `${dist}X`,
          logType: "ACCESS_LOGS",
        }),
      ),
      { name: "ConflictException" },
    );
    await assert.rejects(
      client.send(
        new PutDeliverySourceCommand({
          name: "s",
          resourceArn: dist,
          logType: "ACCESS_LOGS",
          tags: { app: "x" },
        }),
      ),
      {
        name: "ConflictException",
        message: /Tags can only be provided when a resource is being created/,
      },
    );
    await assert.rejects(
      client.send(
        new PutDeliverySourceCommand({ name: "s2", resourceArn: dist, logType: "ACCESS_LOGS" }),
      ),
      { name: "ConflictException", message: /already has delivery source s/ },
    );
    const sources = await client.send(new DescribeDeliverySourcesCommand({}));
    assert.deepEqual(sources.deliverySources?.map((d) => d.name), ["s"]);
    const target = logs.state.groupArn("/cdn");
    await assert.rejects(
      client.send(
        new PutDeliveryDestinationCommand({
          name: "d",
          deliveryDestinationConfiguration: { destinationResourceArn: target },
        }),
      ),
      { name: "ResourceNotFoundException" },
    );
    await client.send(new CreateLogGroupCommand({ logGroupName: "/cdn" }));
    const { deliveryDestination } = await client.send(
      new PutDeliveryDestinationCommand({
        name: "d",
        outputFormat: "json",
        deliveryDestinationConfiguration: { destinationResourceArn: target },
      }),
    );
    const { delivery } = await client.send(
      new CreateDeliveryCommand({
        deliverySourceName: "s",
        deliveryDestinationArn: deliveryDestination!.arn,
      }),
    );
    await assert.rejects(
      client.send(
        new CreateDeliveryCommand({
          deliverySourceName: "s",
          deliveryDestinationArn: deliveryDestination!.arn,
        }),
      ),
      { name: "ConflictException" },
    );
    const listed = await client.send(new DescribeDeliveriesCommand({}));
    assert.deepEqual(listed.deliveries?.map((d) => d.id), [delivery!.id]);
    await assert.rejects(
      client.send(new DeleteDeliverySourceCommand({ name: "s" })),
      { name: "ConflictException" },
    );
    await assert.rejects(
      client.send(new DeleteDeliveryDestinationCommand({ name: "d" })),
      { name: "ConflictException" },
    );
    await client.send(new DeleteDeliveryCommand({ id: delivery!.id }));
    await client.send(new DeleteDeliveryDestinationCommand({ name: "d" }));
    await client.send(new DeleteDeliverySourceCommand({ name: "s" }));
    assert.equal(logs.state.deliverySources.size + logs.state.deliveryDestinations.size, 0);
  } finally {
    client.destroy();
  }
});
