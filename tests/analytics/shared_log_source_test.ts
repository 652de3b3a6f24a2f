/**
 * The site's CloudFront log source is shared: the site's teardown deletes only its own delivery
 * and destination, and keeps the source while another delivery (the analytics pipeline's)
 * uses it.
 */
import assert from "node:assert/strict";
import {
  CloudWatchLogsClient,
  CreateDeliveryCommand,
  CreateLogGroupCommand,
  PutDeliveryDestinationCommand,
} from "@aws-sdk/client-cloudwatch-logs";
import { startInfraWorld } from "../deploy/infra_world.ts";

Deno.test("site destroy keeps the log source while another delivery uses it", async () => {
  await using world = await startInfraWorld({ siteName: "blog", region: "eu-west-1", app: "blog" });
  assert.equal((await world.run(["bootstrap"])).code, 0);
  const logs = new CloudWatchLogsClient({
    region: "us-east-1",
    endpoint: world.aws.logs.endpoint,
    credentials: { accessKeyId: "FAKE", secretAccessKey: "FAKE" },
  });
  try {
    await logs.send(new CreateLogGroupCommand({ logGroupName: "/other/copy" }));
    const dest = await logs.send(
      new PutDeliveryDestinationCommand({
        name: "other-copy",
        deliveryDestinationConfiguration: {
          destinationResourceArn: world.aws.logs.state.groupArn("/other/copy"),
        },
      }),
    );
    await logs.send(
      new CreateDeliveryCommand({
        deliverySourceName: "production-blog-cdn",
        deliveryDestinationArn: dest.deliveryDestination!.arn,
      }),
    );
  } finally {
    logs.destroy();
  }

  const destroyed = await world.run(["destroy", "--yes"]);
  assert.equal(destroyed.code, 0, destroyed.stderr);
  assert.match(
    destroyed.stdout + destroyed.stderr,
    /kept delivery source production-blog-cdn \(us-east-1\): 1 other delivery uses it/,
  );
  const state = world.aws.logs.state;
  assert.ok(state.deliverySources.has("production-blog-cdn"));
  assert.ok(!state.deliveryDestinations.has("production-blog-cdn"));
  assert.deepEqual(
    [...state.deliveries.values()].map((d) => [d.deliverySourceName, d.deliveryDestinationArn]),
    [["production-blog-cdn", state.deliveryDestinations.get("other-copy")!.arn]],
  );
});

Deno.test("site destroy deletes the log source when only its own delivery used it", async () => {
  await using world = await startInfraWorld({ siteName: "blog", region: "eu-west-1", app: "blog" });
  assert.equal((await world.run(["bootstrap"])).code, 0);
  const destroyed = await world.run(["destroy", "--yes"]);
  assert.equal(destroyed.code, 0, destroyed.stderr);
  assert.equal(world.aws.logs.state.deliverySources.size, 0);
  assert.equal(world.aws.logs.state.deliveries.size, 0);
});
