import assert from "node:assert/strict";
import {
  CDN_LOG_FORMAT,
  CDN_LOG_TYPE,
  cdnLogDeliveryDrift,
  cdnLogDeliverySpec,
} from "./cdn_log_delivery.ts";
import { ACCOUNT, DIST_ARN, facts } from "./_test_site.ts";

Deno.test("cdnLogDeliverySpec() sends the distribution's access logs to the CDN log group in us-east-1", () => {
  const spec = cdnLogDeliverySpec(facts({ region: "eu-west-1" }), DIST_ARN);
  assert.equal(spec.name, "production-blog-cdn");
  assert.equal(spec.sourceArn, DIST_ARN);
  assert.equal(
    spec.destinationArn,
    `arn:aws:logs:us-east-1:${ACCOUNT}:log-group:/blog/production/cloudfront`,
  );
  assert.deepEqual(spec.tags, { app: "blog", environment: "production" });
});

Deno.test("cdnLogDeliveryDrift() names each difference; none when in sync", () => {
  const spec = cdnLogDeliverySpec(facts({}), DIST_ARN);
  const destinationArn = "arn:aws:logs:us-east-1:123456789012:delivery-destination:x";
  const inSync = {
    source: { resourceArns: [DIST_ARN], logType: CDN_LOG_TYPE },
    destination: { arn: destinationArn, target: spec.destinationArn, format: CDN_LOG_FORMAT },
    delivery: { id: "d1" },
  };
  assert.deepEqual(cdnLogDeliveryDrift(spec, inSync), []);
  assert.deepEqual(
    cdnLogDeliveryDrift(spec, {
      source: {
        resourceArns: ["arn:aws:cloudfront::123456789012:distribution/EOLD"],
        logType: "X",
      },
      destination: {
        arn: destinationArn,
        target: "arn:aws:logs:us-east-1:1:log-group:/x",
        format: "plain",
      },
    }),
    [
      `source arn:aws:cloudfront::123456789012:distribution/EOLD, want ${DIST_ARN}`,
      "log type X, want ACCESS_LOGS",
      `destination arn:aws:logs:us-east-1:1:log-group:/x, want ${spec.destinationArn}`,
      "format plain, want json",
      "no delivery from the source to the destination",
    ],
  );
  assert.deepEqual(cdnLogDeliveryDrift(spec, { source: inSync.source }), [
    "no delivery destination",
    "no delivery from the source to the destination",
  ]);
  // With no distribution recorded yet, there is no ARN to compare the source with.
  const noDist = cdnLogDeliverySpec(facts({}), undefined);
  assert.deepEqual(cdnLogDeliveryDrift(noDist, inSync), []);
});
