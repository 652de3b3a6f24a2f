import assert from "node:assert/strict";
import { DeployError } from "@org/deploy/plugin";
import { extensionsMissing, openS3TablesSource, REQUIRED_EXTENSIONS } from "./s3_tables_source.ts";

Deno.test("openS3TablesSource() without the extensions says which to install", async () => {
  // An empty extension directory and no download: what a machine without them sees.
  const dir = await Deno.makeTempDir({ prefix: "duckdb-ext-" });
  try {
    const err = await openS3TablesSource(
      {
        tableBucketArn: "arn:aws:s3tables:us-east-1:123456789012:bucket/prod-blog-analytics",
        region: "us-east-1",
        namespace: "web",
        table: "page_views",
      },
      { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret" },
      { download: false, extensionDirectory: dir },
    ).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof DeployError);
    assert.equal(err.code, "query_engine_unavailable");
    for (const name of REQUIRED_EXTENSIONS) assert.match(err.message, new RegExp(`"${name}"`));
    assert.match(err.hint, /INSTALL httpfs; INSTALL aws; INSTALL avro; INSTALL iceberg;/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("extensionsMissing() says a download failed only where one was tried", () => {
  const tried = extensionsMissing(["iceberg"]);
  assert.equal(
    tried.message,
    'the DuckDB extension "iceberg" is not installed and could not be downloaded',
  );
  const status = extensionsMissing(["avro", "iceberg"], false);
  assert.doesNotMatch(status.message, /could not be downloaded/);
  assert.match(
    status.message,
    /^the DuckDB extensions "avro", "iceberg" are not installed \(status does not download/,
  );
  assert.match(status.hint, /INSTALL avro; INSTALL iceberg;/);
  assert.match(status.hint, /docs\/analytics\.md#installing-the-extensions-without-duckdbs-server/);
});
