import assert from "node:assert/strict";
import { testFacts } from "../_test_facts.ts";
import { streamDestination, streamDrift } from "./stream.ts";

const FACTS = testFacts();
const INPUTS = {
  roleArn: "arn:aws:iam::123456789012:role/production-blog-analytics-firehose",
  transformArn:
    "arn:aws:lambda:us-east-1:123456789012:function:production-blog-analytics-transform",
  errorBucketArn: "arn:aws:s3:::production-blog-analytics-errors-123456789012",
};

Deno.test("streamDestination() writes the table through the catalog, failures to the error bucket", () => {
  const d = streamDestination(FACTS, INPUTS);
  assert.equal(d.CatalogConfiguration?.CatalogARN, FACTS.names.catalogArn);
  assert.deepEqual(d.DestinationTableConfigurationList, [{
    DestinationDatabaseName: "web",
    DestinationTableName: "page_views",
  }]);
  assert.equal(d.S3BackupMode, "FailedDataOnly");
  assert.equal(d.S3Configuration?.BucketARN, INPUTS.errorBucketArn);
  assert.equal(d.ProcessingConfiguration?.Processors?.[0]?.Type, "Lambda");
  assert.equal(d.CloudWatchLoggingOptions?.LogGroupName, FACTS.names.streamLogGroup);
});

Deno.test("streamDrift() names each differing setting; none for its own description", () => {
  const want = streamDestination(FACTS, INPUTS);
  const { S3Configuration, ...rest } = want;
  assert.deepEqual(
    streamDrift(want, { ...rest, S3DestinationDescription: S3Configuration as never }),
    [],
  );
  const other = streamDestination(FACTS, { ...INPUTS, transformArn: "arn:other" });
  const { S3Configuration: s3, ...live } = other;
  assert.deepEqual(
    streamDrift(want, {
      ...live,
      RoleARN: "arn:aws:iam::123456789012:role/x",
      S3DestinationDescription: s3 as never,
    }),
    [
      `role arn:aws:iam::123456789012:role/x, want ${INPUTS.roleArn}`,
      `transform arn:other, want ${INPUTS.transformArn}`,
    ],
  );
});

Deno.test("streamDestination() lists no columns and leaves schema evolution to bootstrap", () => {
  const d = streamDestination(FACTS, INPUTS);
  assert.equal(d.SchemaEvolutionConfiguration, undefined);
  assert.equal(d.TableCreationConfiguration, undefined);
  assert.deepEqual(Object.keys(d.DestinationTableConfigurationList![0]!).sort(), [
    "DestinationDatabaseName",
    "DestinationTableName",
  ]);
});
