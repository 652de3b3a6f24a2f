import assert from "node:assert/strict";
import { analyticsNames, nameProblems } from "./names.ts";
import { TEST_SITE as SITE, testConfig as config } from "./_test_facts.ts";

Deno.test("analyticsNames() derives every name, all in us-east-1", () => {
  assert.deepEqual(analyticsNames(SITE, config()), {
    tableBucket: "production-blog-analytics",
    tableBucketArn: "arn:aws:s3tables:us-east-1:123456789012:bucket/production-blog-analytics",
    namespace: "web",
    table: "page_views",
    catalogArn:
      "arn:aws:glue:us-east-1:123456789012:catalog/s3tablescatalog/production-blog-analytics",
    saltSecret: "blog/production/analytics-salt",
    transformFunction: "production-blog-analytics-transform",
    transformRole: "production-blog-analytics-transform",
    transformLogGroup: "/aws/lambda/production-blog-analytics-transform",
    stream: "production-blog-analytics",
    streamRole: "production-blog-analytics-firehose",
    streamLogGroup: "/aws/kinesisfirehose/production-blog-analytics",
    errorBucket: "production-blog-analytics-errors-123456789012",
    logDestination: "production-blog-analytics",
    logSource: "production-blog-cdn",
  });
});

Deno.test("analyticsNames() follows the configured table bucket, namespace, table and secret", () => {
  const names = analyticsNames(
    SITE,
    config({ tableBucket: "stats", namespace: "site", table: "hits", saltSecretName: "s/alt" }),
  );
  assert.equal(names.tableBucketArn, "arn:aws:s3tables:us-east-1:123456789012:bucket/stats");
  assert.equal(
    names.catalogArn,
    "arn:aws:glue:us-east-1:123456789012:catalog/s3tablescatalog/stats",
  );
  assert.deepEqual([names.namespace, names.table, names.saltSecret], ["site", "hits", "s/alt"]);
});

Deno.test("nameProblems() names a derived name over its AWS limit", () => {
  assert.deepEqual(nameProblems(analyticsNames(SITE, config())), []);
  const long = { ...SITE, siteName: "a-rather-long-site-name-x" };
  assert.deepEqual(nameProblems(analyticsNames(long, config({}, long.siteName))), [
    "error bucket production-a-rather-long-site-name-x-analytics-errors-123456789012 is 66 " +
    "characters, over 63",
  ]);
});
