/**
 * The analytics graph on the core engine, end to end against the loopback fakes: a site
 * bootstrapped in eu-west-1, the pipeline created in us-east-1, re-run, inspected, repaired
 * and torn down, with the site's own log delivery untouched.
 */
import assert from "node:assert/strict";
import { DeleteDeliveryStreamCommand } from "@aws-sdk/client-firehose";
import { DeleteObjectCommand, GetObjectCommand } from "@aws-sdk/client-s3";
import {
  bootstrapPipeline,
  destroyPipeline,
  inspectPipeline,
} from "../../analytics/pipeline/run.ts";
import { ANALYTICS_GRAPH } from "../../analytics/pipeline/graph.ts";
import { SELECTED_LOG_FIELDS } from "../../analytics/transform/cloudfront_record.ts";
import { transformPackage } from "../../analytics/transform/lambda_package.ts";
import { mutatingCalls, startInfraWorld } from "../deploy/infra_world.ts";
import { pipelineClients, pipelineRun, SITE_BUCKET } from "./pipeline_world.ts";

const SITE = { siteName: "blog", region: "eu-west-1", app: "blog" };

Deno.test("analytics pipeline: bootstrap creates every node in us-east-1, adopts, repairs and tears down", async () => {
  await using world = await startInfraWorld(SITE);
  const site = await world.run(["bootstrap"]);
  assert.equal(site.code, 0, site.stderr);
  using clients = pipelineClients(world);
  const run = pipelineRun(clients);
  const siteCalls = new Set(world.aws.allCalls());

  const first = await bootstrapPipeline(run);
  assert.deepEqual(
    first.nodes.map((n) => [n.id, n.action]),
    ANALYTICS_GRAPH.map((n) => [n.id, "created"]),
  );
  // Every line naming a resource says where it is.
  for (const n of first.nodes) assert.match(n.label, /us-east-1/, n.label);
  // Every analytics call was signed for us-east-1, though the site is in eu-west-1.
  const analyticsCalls = world.aws.allCalls().filter((c) => !siteCalls.has(c));
  assert.ok(analyticsCalls.length > 20);
  for (const c of analyticsCalls) {
    assert.equal(c.region, "us-east-1", `${c.service} ${c.operation}`);
  }

  // What was made, as the services hold it.
  const table = world.aws.s3tables.state.buckets.get(
    "arn:aws:s3tables:us-east-1:123456789012:bucket/production-blog-analytics",
  )!.namespaces.get("web")!.get("page_views")!;
  const fields = (table.metadata as { iceberg: { schema: { fields: { name: string }[] } } })
    .iceberg.schema.fields.map((f) => f.name);
  assert.equal(fields.length, 30);
  assert.ok(!fields.includes("ip"));
  const secret = world.aws.secretsManager.state.secrets.get("blog/production/analytics-salt")!;
  assert.equal(atob(secret.binary!).length, 32);
  const fn = world.aws.lambda.state.functions.get("production-blog-analytics-transform")!;
  assert.equal(fn.codeSha256, transformPackage().sha256);
  assert.equal(fn.environment.SALT_SECRET_ID, secret.arn);
  const stream = world.aws.firehose.state.streams.get("production-blog-analytics")!;
  assert.equal(stream.tags.LogDeliveryEnabled, "true");
  assert.equal(
    world.aws.logs.state.groups.get("/aws/lambda/production-blog-analytics-transform")
      ?.retentionInDays,
    365,
  );
  assert.equal(
    world.aws.logs.state.groups.get("/aws/kinesisfirehose/production-blog-analytics")
      ?.retentionInDays,
    365,
  );
  const deliveries = [...world.aws.logs.state.deliveries.values()];
  assert.equal(deliveries.length, 2, "the site's delivery and the pipeline's");
  const ours = deliveries.find((d) => d.deliveryDestinationType === "FH")!;
  assert.equal(ours.deliverySourceName, "production-blog-cdn");
  assert.deepEqual(ours.recordFields, [...SELECTED_LOG_FIELDS]);

  // The scoped state records every node.
  const state = JSON.parse(
    await (await clients.siteS3.send(
      new GetObjectCommand({ Bucket: SITE_BUCKET, Key: "state/production.analytics.json" }),
    )).Body!.transformToString(),
  );
  assert.deepEqual(Object.keys(state.nodes).sort(), ANALYTICS_GRAPH.map((n) => n.id).sort());

  // A second run changes nothing.
  const before = mutatingCalls(world).length;
  const second = await bootstrapPipeline(run);
  assert.ok(second.nodes.every((n) => n.action === "unchanged"), JSON.stringify(second.nodes));
  assert.deepEqual(mutatingCalls(world).slice(before), []);

  // Status: all present; a stream deleted behind its back is missing; bootstrap repairs it.
  const healthy = await inspectPipeline(run);
  assert.ok(healthy.reports.every((r) => r.status === "present"), JSON.stringify(healthy.reports));
  await clients.firehose.send(
    new DeleteDeliveryStreamCommand({ DeliveryStreamName: "production-blog-analytics" }),
  );
  const broken = await inspectPipeline(run);
  assert.deepEqual(
    broken.reports.filter((r) => r.status !== "present").map((r) => [r.id, r.status]),
    [["stream", "missing"]],
  );
  const repaired = await bootstrapPipeline(run);
  assert.deepEqual(
    repaired.nodes.filter((n) => n.action !== "unchanged").map((n) => [n.id, n.action]),
    // Same name, same ARN: the destination and delivery still point at it.
    [["stream", "created"]],
  );

  // A run that crashed before recording anything: every resource is adopted, none rewritten.
  await clients.siteS3.send(
    new DeleteObjectCommand({ Bucket: SITE_BUCKET, Key: "state/production.analytics.json" }),
  );
  const adopted = await bootstrapPipeline(run);
  assert.ok(adopted.nodes.every((n) => n.action === "adopted"), JSON.stringify(adopted.nodes));
  assert.equal(
    world.aws.secretsManager.state.secrets.get("blog/production/analytics-salt")!.versions,
    1,
  );
  assert.equal(world.aws.secretsManager.callsOf("PutSecretValue").length, 0);

  // Destroy: everything but the secret and the catalog; the site's delivery keeps working.
  const destroyed = await destroyPipeline(run);
  assert.deepEqual(
    destroyed.filter((r) => r.action === "kept").map((r) => r.id).sort(),
    ["catalog", "saltSecret"],
  );
  assert.ok(world.aws.secretsManager.state.secrets.has("blog/production/analytics-salt"));
  assert.ok(world.aws.glue.state.catalogs.has("s3tablescatalog"));
  assert.equal(world.aws.s3tables.state.buckets.size, 0);
  assert.equal(world.aws.lambda.state.functions.size, 0);
  assert.equal(world.aws.firehose.state.streams.size, 0);
  const left = [...world.aws.logs.state.deliveries.values()];
  assert.deepEqual(left.map((d) => [d.deliverySourceName, d.deliveryDestinationType]), [
    ["production-blog-cdn", "CWL"],
  ]);
  assert.ok(world.aws.logs.state.deliverySources.has("production-blog-cdn"));
  assert.equal((await inspectPipeline(run)).state, null);
});
