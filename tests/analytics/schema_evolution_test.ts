/**
 * Schema evolution through the CLI, against the loopback fakes: a page-view table an older
 * release created (the first 20 columns, schema 0) is reported by `analytics status`, then
 * `analytics bootstrap` adds the missing columns with one Iceberg schema commit through the
 * S3 Tables catalog, and a re-run changes nothing. No data is rewritten: the only write to the
 * table is that commit (the fake has no data files; the peer suite reads older rows back).
 */
import assert from "node:assert/strict";
import { ROW_COLUMNS } from "../../analytics/transform/row.ts";
import { mutatingCalls, startInfraWorld } from "../deploy/infra_world.ts";
import {
  ADDED_COLUMNS,
  createFirstReleaseTable,
  FIRST_RELEASE_COLUMNS,
} from "./first_release_table.ts";
import { pipelineClients } from "./pipeline_world.ts";

const SITE = { siteName: "blog", region: "eu-west-1", app: "blog" };
const OLD_COLUMNS = FIRST_RELEASE_COLUMNS.length;

Deno.test("analytics e2e: bootstrap evolves an older table's schema, status shows its version", async () => {
  await using world = await startInfraWorld(SITE);
  assert.equal((await world.run(["bootstrap"])).code, 0);
  assert.equal((await world.run(["plugin", "add", "analytics"])).code, 0);

  // The table as the first release made it.
  using clients = pipelineClients(world);
  const bucketArn = await createFirstReleaseTable(clients.s3tables);
  const table = () =>
    world.aws.s3tables.state.buckets.get(bucketArn)!.namespaces.get("web")!.get("page_views")!;

  const before = JSON.parse((await world.run(["analytics", "status", "--json"])).stdout);
  assert.deepEqual(before.schema, { id: 0, current: false });
  const tableNode = before.nodes.find((n: { id: string }) => n.id === "table");
  assert.equal(tableNode.status, "drifted");
  assert.ok(
    tableNode.drift.includes(
      `schema 0 lacks ${ADDED_COLUMNS.length} column(s): ${
        ADDED_COLUMNS.join(", ")
      } (bootstrap adds them; no data is ` +
        "rewritten)",
    ),
    JSON.stringify(tableNode.drift),
  );
  const text = await world.run(["analytics", "status"]);
  assert.match(
    text.stdout,
    /Schema: 0 \(columns missing: run `deploy analytics bootstrap production` to add them\)/,
  );

  const boot = await world.run(["analytics", "bootstrap"]);
  assert.equal(boot.code, 0, boot.stderr);
  assert.match(boot.stdout, /updated +table production-blog-analytics\/web\.page_views/);
  const [commit, ...more] = world.aws.s3tables.callsOf("UpdateTable");
  assert.equal(more.length, 0, "one schema commit");
  assert.equal(commit!.region, "us-east-1");
  const iceberg = table().iceberg;
  assert.equal(iceberg["current-schema-id"], 1);
  assert.deepEqual(iceberg.schemas.map((s) => s["schema-id"]), [0, 1]);
  const fields = iceberg.schemas[1]!.fields;
  assert.deepEqual(fields.map((f) => f.name), ROW_COLUMNS.map((c) => c.name));
  assert.deepEqual(fields.map((f) => f.id), ROW_COLUMNS.map((_, i) => i + 1));
  assert.ok(fields.slice(OLD_COLUMNS).every((f) => !f.required));

  const after = JSON.parse((await world.run(["analytics", "status", "--json"])).stdout);
  assert.deepEqual(after.schema, { id: 1, current: true });
  assert.equal(after.nodes.find((n: { id: string }) => n.id === "table").status, "present");
  assert.match((await world.run(["analytics", "status"])).stdout, /Schema: 1 \(current\)/);

  const quiet = mutatingCalls(world).length;
  const again = await world.run(["analytics", "bootstrap"]);
  assert.match(again.stdout, /No changes: every analytics resource is up to date\./);
  assert.deepEqual(mutatingCalls(world).slice(quiet), []);
});

Deno.test("analytics e2e: a new table is created with every column, at schema 0", async () => {
  await using world = await startInfraWorld(SITE);
  assert.equal((await world.run(["bootstrap"])).code, 0);
  assert.equal((await world.run(["plugin", "add", "analytics"])).code, 0);
  assert.equal((await world.run(["analytics", "bootstrap"])).code, 0);
  assert.deepEqual(world.aws.s3tables.callsOf("UpdateTable"), []);
  const status = JSON.parse((await world.run(["analytics", "status", "--json"])).stdout);
  assert.deepEqual(status.schema, { id: 0, current: true });
});

Deno.test("analytics e2e: backfill refuses a table that lacks columns, naming bootstrap", async () => {
  await using world = await startInfraWorld(SITE);
  assert.equal((await world.run(["bootstrap"])).code, 0);
  assert.equal((await world.run(["plugin", "add", "analytics"])).code, 0);
  assert.equal((await world.run(["analytics", "bootstrap"])).code, 0);
  // The table as an older release left it: its schema without the added columns.
  const table = world.aws.s3tables.state.buckets.get(
    "arn:aws:s3tables:us-east-1:123456789012:bucket/production-blog-analytics",
  )!.namespaces.get("web")!.get("page_views")!;
  const [schema] = table.iceberg.schemas;
  schema!.fields = schema!.fields.slice(0, FIRST_RELEASE_COLUMNS.length);
  const r = await world.run(["analytics", "backfill", "--json"]);
  assert.equal(r.code, 1);
  const error = JSON.parse(r.stdout).error;
  assert.equal(error.code, "state_missing");
  assert.match(error.message, new RegExp(`lacks the column\\(s\\) ${ADDED_COLUMNS.join(", ")}`));
  assert.equal(
    error.hint,
    "run `deploy analytics bootstrap production` first: it adds them, rewriting no data",
  );
});
