/**
 * Schema evolution on the real query path: ministack's S3 Tables (with its Iceberg REST
 * catalog) holds a page-view table as the first release made it (20 columns, schema 0) with
 * rows in it, written through DuckDB 1.5.5's `iceberg` extension; `deploy analytics bootstrap`
 * (the CLI in a subprocess, as a site runs it) adds the new columns with one catalog commit;
 * then DuckDB reads the older rows with the new columns null, writes new rows with every column,
 * and `analytics status` shows the schema version. Glue (and the site flows' routes) run on our
 * fakes, as in `analytics_peer_test.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  CreateNamespaceCommand,
  CreateTableBucketCommand,
  CreateTableCommand,
  S3TablesClient,
} from "@aws-sdk/client-s3tables";
import { tableMetadata } from "../../../analytics/pipeline/nodes/table.ts";
import { duckdbEndpoints } from "../../../analytics/queries/endpoints.ts";
import { insertRows } from "../../../analytics/queries/insert_rows.ts";
import { openS3TablesSource } from "../../../analytics/queries/s3_tables_source.ts";
import { quoteIdentifier } from "../../../analytics/queries/source.ts";
import { testRow } from "../../../analytics/queries/_test_rows.ts";
import { ROW_COLUMNS } from "../../../analytics/transform/row.ts";
import { deployTaskFlags, runDeployProcess } from "../../deploy/deploy_process.ts";
import { startAwsFakes } from "../../fakes/aws.ts";
import { type AwsEmulator, startMinistack } from "../support/aws_emulator.ts";
import { duckdbExtensions } from "../support/duckdb_extensions.ts";
import { FAKE_ROUTES, type FakeRoute } from "../aws/peer_world.ts";

const WORKSPACE = new URL("../../../", import.meta.url).pathname;
const ROUTES: readonly FakeRoute[] = [
  ...FAKE_ROUTES.ministack,
  { service: "GLUE", why: "ministack 1.5.33 has no Glue GetCatalog or CreateCatalog" },
];
/** The columns of the first release's table. */
const OLD_COLUMNS = ROW_COLUMNS.slice(0, 20);
const NEW_COLUMNS = ROW_COLUMNS.slice(20).map((c) => c.name);

Deno.test({
  name: "analytics peer: bootstrap adds columns to a table with rows; older rows read null",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const extensions = await duckdbExtensions();
    await using ministack = await startMinistack();
    await using fakes = startAwsFakes({ accountId: ministack.accountId, region: ministack.region });
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "analytics-schema-" }));
    try {
      await Deno.mkdir(join(root, ".git"));
      await Deno.mkdir(join(root, "config"));
      await Deno.writeTextFile(
        join(root, "config", "production.jsonc"),
        JSON.stringify({ siteName: "blog", region: "us-east-1", app: "blog" }),
      );
      const flags = [
        ...(await deployTaskFlags(extensions.home)).map((f) =>
          f.startsWith("--allow-read=") ? `${f},${WORKSPACE}` : f
        ),
        `--allow-ffi=${WORKSPACE}node_modules`,
      ];
      const env = {
        ...ministack.env,
        ...Object.fromEntries(ROUTES.map((r) => {
          const name = `AWS_ENDPOINT_URL_${r.service}`;
          return [name, fakes.endpointEnv[name]!];
        })),
        HOME: extensions.home,
      };
      const cli = (...args: string[]) => runDeployProcess({ flags, args, cwd: root, env });
      assert.equal((await cli("bootstrap")).code, 0);
      assert.equal((await cli("plugin", "add", "analytics")).code, 0);

      // The first release's table, and two rows in it.
      const tableBucketArn = await createOldTable(ministack);
      await withTable(ministack, extensions.dir, tableBucketArn, async (source) => {
        const names = OLD_COLUMNS.map((c) => quoteIdentifier(c.name)).join(", ");
        for (const [i, uri] of ["/old-1", "/old-2"].entries()) {
          const row = testRow(`2026-01-0${i + 1}T10:00:00.000Z`, { uri });
          const values = OLD_COLUMNS.map((c) => sqlValue(c.type, row[c.name]));
          await source.connection.run(
            `INSERT INTO ${source.relation} (${names}) VALUES (${values.join(", ")})`,
          );
        }
      });
      const before = JSON.parse((await cli("analytics", "status", "--json")).stdout);
      assert.deepEqual(before.schema, { id: 0, current: false });

      const boot = await cli("analytics", "bootstrap");
      assert.equal(boot.code, 0, boot.stdout + boot.stderr);
      assert.match(boot.stdout, /updated +table production-blog-analytics\/web\.page_views/);
      const after = JSON.parse((await cli("analytics", "status", "--json")).stdout);
      assert.deepEqual(after.schema, { id: 1, current: true });
      assert.deepEqual(after.rows, { count: 2 }, "no row lost or rewritten");

      await withTable(ministack, extensions.dir, tableBucketArn, async (source) => {
        const read = async () =>
          (await source.connection.runAndReadAll(
            `SELECT uri, ${NEW_COLUMNS.join(", ")} FROM ${source.relation} ORDER BY uri`,
          )).getRowObjectsJS();
        const old = await read();
        assert.deepEqual(old.map((r) => r.uri), ["/old-1", "/old-2"]);
        for (const r of old) {
          for (const c of NEW_COLUMNS) assert.equal(r[c], null, `${r.uri} ${c}`);
        }
        const fresh = testRow("2026-01-03T10:00:00.000Z", {
          uri: "/new",
          browser: "Firefox",
          browser_version: 140,
          os: "Linux",
          device: "desktop",
          utm_source: "newsletter",
          channel: "email",
        });
        assert.equal(await insertRows(source, [fresh]), 1);
        const rows = await read();
        assert.deepEqual(
          rows.map((r) => [r.uri, r.browser, r.browser_version, r.device, r.channel]),
          [
            ["/new", "Firefox", 140, "desktop", "email"],
            ["/old-1", null, null, null, null],
            ["/old-2", null, null, null, null],
          ],
        );
      });
      const again = await cli("analytics", "bootstrap");
      assert.doesNotMatch(again.stdout, /updated +table/, "the schema is current now");
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

/** Creates the table bucket, namespace and the 20-column table in ministack; its ARN. */
async function createOldTable(ministack: AwsEmulator): Promise<string> {
  const client = new S3TablesClient({
    region: "us-east-1",
    endpoint: ministack.endpoint,
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
  try {
    const { arn } = await client.send(
      new CreateTableBucketCommand({ name: "production-blog-analytics" }),
    );
    await client.send(new CreateNamespaceCommand({ tableBucketARN: arn, namespace: ["web"] }));
    const meta = tableMetadata();
    await client.send(
      new CreateTableCommand({
        tableBucketARN: arn,
        namespace: "web",
        name: "page_views",
        format: "ICEBERG",
        metadata: {
          iceberg: {
            ...meta,
            schema: { fields: meta.schema!.fields!.slice(0, OLD_COLUMNS.length) },
          },
        },
      }),
    );
    return arn!;
  } finally {
    client.destroy();
  }
}

/** Opens the table the product's way (endpoint override, the wheels' extensions). */
async function withTable(
  ministack: AwsEmulator,
  extensionDirectory: string,
  tableBucketArn: string,
  fn: (source: Awaited<ReturnType<typeof openS3TablesSource>>) => Promise<void>,
) {
  using source = await openS3TablesSource(
    { tableBucketArn, region: "us-east-1", namespace: "web", table: "page_views" },
    { accessKeyId: "test", secretAccessKey: "test" },
    { download: false, extensionDirectory, endpoints: duckdbEndpoints(ministack.env) },
  );
  await fn(source);
}

/** A SQL literal of a test row's value. */
function sqlValue(type: string, value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  const text = `'${String(value).replaceAll("'", "''")}'`;
  return type === "timestamptz" ? `${text}::TIMESTAMPTZ` : type === "date" ? `${text}::DATE` : text;
}
