import assert from "node:assert/strict";
import { duckdbEndpoints } from "./endpoints.ts";
import { attachStatement, s3SecretStatement } from "./s3_tables_source.ts";

const TARGET = {
  tableBucketArn: "arn:aws:s3tables:us-east-1:123456789012:bucket/production-blog-analytics",
  region: "us-east-1",
  namespace: "web",
  table: "page_views",
};
const KEYS = { accessKeyId: "AKID", secretAccessKey: "S'K" };

Deno.test("duckdbEndpoints() follows the SDK: per service, else AWS_ENDPOINT_URL, else AWS's own", () => {
  assert.deepEqual(duckdbEndpoints({}), {});
  assert.deepEqual(duckdbEndpoints({ AWS_ENDPOINT_URL: "http://127.0.0.1:4566" }), {
    catalog: "http://127.0.0.1:4566/iceberg",
    data: { endpoint: "127.0.0.1:4566", useSsl: false },
  });
  assert.deepEqual(
    duckdbEndpoints({
      AWS_ENDPOINT_URL: "http://127.0.0.1:1",
      AWS_ENDPOINT_URL_S3TABLES: "https://tables.example/",
      AWS_ENDPOINT_URL_S3: "https://objects.example:9000/s3/",
    }),
    {
      catalog: "https://tables.example/iceberg",
      data: { endpoint: "objects.example:9000/s3", useSsl: true },
    },
  );
  assert.deepEqual(duckdbEndpoints({ AWS_ENDPOINT_URL_S3: "http://127.0.0.1:9000" }), {
    data: { endpoint: "127.0.0.1:9000", useSsl: false },
  });
});

Deno.test("duckdbEndpoints() ignores every override under AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", () => {
  assert.deepEqual(
    duckdbEndpoints({
      AWS_ENDPOINT_URL: "http://127.0.0.1:4566",
      AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: "true",
    }),
    {},
  );
});

Deno.test("attachStatement() lets DuckDB derive AWS's endpoints when nothing is overridden", () => {
  assert.equal(
    attachStatement(TARGET, {}),
    `ATTACH '${TARGET.tableBucketArn}' AS "analytics" (TYPE iceberg, ENDPOINT_TYPE s3_tables)`,
  );
  assert.equal(
    s3SecretStatement(KEYS, "us-east-1", {}),
    "CREATE OR REPLACE SECRET analytics_s3 (TYPE s3, KEY_ID 'AKID', SECRET 'S''K', " +
      "REGION 'us-east-1')",
  );
});

Deno.test("attachStatement() with an override signs the catalog as s3tables and reads data with our secret", () => {
  const endpoints = duckdbEndpoints({ AWS_ENDPOINT_URL: "http://127.0.0.1:4566" });
  assert.equal(
    attachStatement(TARGET, endpoints),
    `ATTACH '${TARGET.tableBucketArn}' AS "analytics" (TYPE iceberg, ` +
      "ENDPOINT 'http://127.0.0.1:4566/iceberg', AUTHORIZATION_TYPE 'sigv4', " +
      "SIGV4_SERVICE 's3tables', SIGV4_REGION 'us-east-1', SECRET analytics_s3, " +
      "ACCESS_DELEGATION_MODE 'none')",
  );
  assert.equal(
    s3SecretStatement({ ...KEYS, sessionToken: "ST" }, "us-east-1", endpoints),
    "CREATE OR REPLACE SECRET analytics_s3 (TYPE s3, KEY_ID 'AKID', SECRET 'S''K', " +
      "SESSION_TOKEN 'ST', REGION 'us-east-1', ENDPOINT '127.0.0.1:4566', URL_STYLE 'path', " +
      "USE_SSL false)",
  );
});
