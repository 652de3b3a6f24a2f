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
import { S3TablesClient } from "@aws-sdk/client-s3tables";
import { insertRows } from "../../../analytics/queries/insert_rows.ts";
import { quoteIdentifier } from "../../../analytics/queries/source.ts";
import { testRow } from "../../../analytics/queries/_test_rows.ts";
import {
  ADDED_COLUMNS,
  createFirstReleaseTable,
  FIRST_RELEASE_COLUMNS,
} from "../../analytics/first_release_table.ts";
import { startAwsFakes } from "../../fakes/aws.ts";
import { startMinistack } from "../support/aws_emulator.ts";
import { duckdbExtensions } from "../support/duckdb_extensions.ts";
import { makeSiteRoot, peerCli, withTable } from "./analytics_peer_world.ts";

Deno.test({
  name: "analytics peer: bootstrap adds columns to a table with rows; older rows read null",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const extensions = await duckdbExtensions();
    await using ministack = await startMinistack();
    await using fakes = startAwsFakes({ accountId: ministack.accountId, region: ministack.region });
    const root = await makeSiteRoot("analytics-schema-");
    try {
      const { cli } = await peerCli(ministack, fakes, extensions.home, root);
      assert.equal((await cli("bootstrap")).code, 0);
      assert.equal((await cli("plugin", "add", "analytics")).code, 0);

      // The first release's table, and two rows in it.
      const tables = new S3TablesClient({
        region: "us-east-1",
        endpoint: ministack.endpoint,
        credentials: { accessKeyId: "test", secretAccessKey: "test" },
      });
      const tableBucketArn = await createFirstReleaseTable(tables).finally(() => tables.destroy());
      await withTable(ministack, extensions.dir, tableBucketArn, async (source) => {
        const names = FIRST_RELEASE_COLUMNS.map((c) => quoteIdentifier(c.name)).join(", ");
        for (const [i, uri] of ["/old-1", "/old-2"].entries()) {
          const row = testRow(`2026-01-0${i + 1}T10:00:00.000Z`, { uri });
          const values = FIRST_RELEASE_COLUMNS.map((c) => sqlValue(c.type, row[c.name]));
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
            `SELECT uri, ${ADDED_COLUMNS.join(", ")} FROM ${source.relation} ORDER BY uri`,
          )).getRowObjectsJS();
        const old = await read();
        assert.deepEqual(old.map((r) => r.uri), ["/old-1", "/old-2"]);
        for (const r of old) {
          for (const c of ADDED_COLUMNS) assert.equal(r[c], null, `${r.uri} ${c}`);
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

/** A SQL literal of a test row's value. */
function sqlValue(type: string, value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  const text = `'${String(value).replaceAll("'", "''")}'`;
  return type === "timestamptz" ? `${text}::TIMESTAMPTZ` : type === "date" ? `${text}::DATE` : text;
}
