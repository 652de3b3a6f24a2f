/**
 * End to end through the CLI, in-process, against the loopback fakes: the site in eu-west-1,
 * `plugin add analytics`, then the pipeline's bootstrap, status, repair and destroy in
 * us-east-1, with the core commands' rules around it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DeleteDeliveryStreamCommand } from "@aws-sdk/client-firehose";
import { ANALYTICS_GRAPH } from "../../analytics/pipeline/graph.ts";
import { mutatingCalls, startInfraWorld } from "../deploy/infra_world.ts";
import { pipelineClients } from "./pipeline_world.ts";

const SITE = { siteName: "blog", region: "eu-west-1", app: "blog" };
const ANALYTICS_SERVICES = ["s3tables", "glue", "secretsmanager", "lambda", "firehose"];

Deno.test("analytics e2e: plugin add, bootstrap in us-east-1, status, repair, core destroy refused, destroy", async () => {
  await using world = await startInfraWorld(SITE);
  const site = await world.run(["bootstrap"]);
  assert.equal(site.code, 0, site.stderr);

  // Without the plugin: the built-in commands as before, analytics says how to install it.
  const missing = await world.run(["analytics", "bootstrap"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /the analytics plugin is not installed/);
  assert.match(missing.stderr, /deploy plugin add analytics/);

  const added = await world.run(["plugin", "add", "analytics"]);
  assert.equal(added.code, 0, added.stderr);
  const denoJson = JSON.parse(await Deno.readTextFile(join(world.root, "deno.json")));
  assert.deepEqual(denoJson.imports, {
    "@org/deploy-analytics": "jsr:@org/deploy-analytics@^0.1.0",
  });
  const listed = await world.run(["plugin", "list"]);
  assert.match(listed.stdout, /^analytics {2}jsr:@org\/deploy-analytics@\^0\.1\.0/m);
  assert.match(listed.stdout, /deploy analytics bootstrap/);

  // Bootstrap: every resource, every line saying us-east-1, every call signed for us-east-1.
  const before = new Set(world.aws.allCalls());
  const first = await world.run(["analytics", "bootstrap"]);
  assert.equal(first.code, 0, first.stderr);
  assert.match(
    first.stdout,
    /Bootstrapping analytics for production \(us-east-1; the site is in eu-west-1\)/,
  );
  const created = first.stdout.split("\n").filter((l) => /^ {2}created /.test(l));
  assert.equal(created.length, ANALYTICS_GRAPH.length, first.stdout);
  for (const line of created) assert.match(line, /us-east-1/, line);
  const calls = world.aws.allCalls().filter((c) => !before.has(c));
  for (const service of ANALYTICS_SERVICES) {
    assert.ok(calls.some((c) => c.service === service), `no ${service} call`);
  }
  for (const c of calls.filter((c) => c.service !== "sts")) {
    assert.equal(c.region, "us-east-1", `${c.service} ${c.operation}`);
  }

  // A re-run changes nothing.
  const quiet = mutatingCalls(world).length;
  const second = await world.run(["analytics", "bootstrap"]);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /No changes: every analytics resource is up to date\./);
  assert.deepEqual(mutatingCalls(world).slice(quiet), []);

  // Status: all present; the stream's state; no row count yet.
  const status = await world.run(["analytics", "status", "--json"]);
  assert.equal(status.code, 0, status.stderr);
  const report = JSON.parse(status.stdout);
  assert.equal(report.ok, true);
  assert.equal(report.region, "us-east-1");
  assert.equal(report.stream.status, "ACTIVE");
  assert.equal(report.rows.count, null);
  assert.equal(report.nodes.length, ANALYTICS_GRAPH.length);

  // Core bootstrap mentions the plugin's state.
  const siteAgain = await world.run(["bootstrap"]);
  assert.match(
    siteAgain.stdout,
    /Plugin analytics has resources of its own \(s3:\/\/production-blog-123456789012\/state\/production\.analytics\.json\)/,
  );

  // Deleted behind its back: missing, then repaired.
  using clients = pipelineClients(world);
  await clients.firehose.send(
    new DeleteDeliveryStreamCommand({ DeliveryStreamName: "production-blog-analytics" }),
  );
  const broken = await world.run(["analytics", "status"]);
  assert.match(broken.stdout, /missing +Firehose stream production-blog-analytics \(us-east-1\)/);
  assert.match(broken.stdout, /Stream: does not exist/);
  const repaired = await world.run(["analytics", "bootstrap"]);
  assert.equal(repaired.code, 0, repaired.stderr);
  assert.match(repaired.stdout, /created +Firehose stream production-blog-analytics \(us-east-1\)/);

  // Core destroy refuses while the plugin has state, naming its destroy.
  const refused = await world.run(["destroy", "--yes"]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /production still has plugin resources/);
  assert.match(refused.stderr, /run `deploy analytics destroy production --yes` first/);
  assert.ok(world.aws.cloudfront.state.distributions.size > 0, "nothing was deleted");

  // analytics destroy needs --yes, then removes all but the secret and the catalog.
  assert.equal((await world.run(["analytics", "destroy"])).code, 1);
  const destroyed = await world.run(["analytics", "destroy", "--yes"]);
  assert.equal(destroyed.code, 0, destroyed.stderr);
  assert.match(destroyed.stdout, /Kept secret blog\/production\/analytics-salt \(us-east-1\): /);
  assert.match(destroyed.stdout, /Kept Glue catalog s3tablescatalog \(us-east-1, account-wide\): /);
  assert.ok(world.aws.secretsManager.state.secrets.has("blog/production/analytics-salt"));
  assert.ok(world.aws.glue.state.catalogs.has("s3tablescatalog"));
  assert.equal(world.aws.s3tables.state.buckets.size, 0);
  assert.equal(world.aws.firehose.state.streams.size, 0);
  assert.equal(world.aws.lambda.state.functions.size, 0);
  assert.ok(![...world.aws.iam.state.roles.keys()].some((r) => r.includes("analytics")));

  // The site's own log delivery still works: source, destination and delivery in place.
  const logs = world.aws.logs.state;
  const source = logs.deliverySources.get("production-blog-cdn");
  assert.ok(source, "the site's log source is kept");
  const destination = logs.deliveryDestinations.get("production-blog-cdn")!;
  assert.equal(
    destination.destinationResourceArn,
    "arn:aws:logs:us-east-1:123456789012:log-group:/blog/production/cloudfront",
  );
  assert.deepEqual(
    [...logs.deliveries.values()].map((d) => [d.deliverySourceName, d.deliveryDestinationArn]),
    [["production-blog-cdn", destination.arn]],
  );
  const siteStatus = await world.run(["status", "--json"]);
  const delivery = JSON.parse(siteStatus.stdout).nodes.find((n: { id: string }) =>
    n.id === "cdnLogDelivery"
  );
  assert.equal(delivery.status, "present");

  // With the plugin's state gone, the core destroy proceeds.
  const gone = await world.run(["destroy", "--yes"]);
  assert.equal(gone.code, 0, gone.stderr);
});

Deno.test("analytics e2e: bootstrap refuses while the site is not bootstrapped", async () => {
  await using world = await startInfraWorld(SITE);
  await Deno.writeTextFile(
    join(world.root, "deno.json"),
    JSON.stringify({ imports: { "@org/deploy-analytics": "jsr:@org/deploy-analytics@^0.1.0" } }),
  );
  const r = await world.run(["analytics", "bootstrap", "--json"]);
  assert.equal(r.code, 1);
  const error = JSON.parse(r.stdout).error;
  assert.equal(error.code, "state_missing");
  assert.equal(error.hint, "run `deploy bootstrap production` first");
  assert.equal(world.aws.s3tables.calls.length, 0);
});
