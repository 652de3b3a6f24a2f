import assert from "node:assert/strict";
import {
  applyManaged,
  distributionConfig,
  distributionDrift,
  distributionSpec,
  errorPagesDrift,
  withRewriteFunction,
} from "./distribution.ts";
import { ACCOUNT, BUCKET, facts } from "./_test_site.ts";

const FN_ARN = `arn:aws:cloudfront::${ACCOUNT}:function/production-blog-rewrite`;

Deno.test("distributionConfig() without a domain serves the bucket's site/ prefix on the CDN domain", () => {
  const config = distributionConfig(distributionSpec(facts({ region: "eu-west-1" }), "EOAC"));
  const origin = config.Origins!.Items![0]!;
  assert.equal(origin.DomainName, `${BUCKET}.s3.eu-west-1.amazonaws.com`);
  assert.equal(origin.OriginPath, "/site");
  assert.equal(origin.OriginAccessControlId, "EOAC");
  assert.deepEqual(origin.S3OriginConfig, { OriginAccessIdentity: "" });
  assert.equal(config.DefaultRootObject, "index.html");
  assert.equal(config.DefaultCacheBehavior!.ViewerProtocolPolicy, "redirect-to-https");
  assert.equal(config.DefaultCacheBehavior!.Compress, true);
  assert.deepEqual(config.Aliases, { Quantity: 0 });
  assert.equal(config.ViewerCertificate!.CloudFrontDefaultCertificate, true);
  assert.deepEqual(config.CustomErrorResponses!.Items, [{
    ErrorCode: 404,
    ResponsePagePath: "/404.html",
    ResponseCode: "404",
    ErrorCachingMinTTL: 10,
  }]);
  assert.equal(config.Enabled, true);
});

Deno.test("distributionConfig() with an issued certificate sets the domain alias and SNI certificate", () => {
  const f = facts({ domain: "blog.example.com", defaultRootObject: "home.html" });
  const config = distributionConfig(
    distributionSpec(f, "EOAC", { arn: "arn:aws:acm:us-east-1:1:certificate/x", status: "ISSUED" }),
  );
  assert.deepEqual(config.Aliases, { Quantity: 1, Items: ["blog.example.com"] });
  assert.equal(
    config.ViewerCertificate!.ACMCertificateArn,
    "arn:aws:acm:us-east-1:1:certificate/x",
  );
  assert.equal(config.ViewerCertificate!.SSLSupportMethod, "sni-only");
  assert.equal(config.DefaultRootObject, "home.html");
});

Deno.test("distributionSpec() leaves the alias off while the certificate is pending validation", () => {
  const spec = distributionSpec(facts({ domain: "blog.example.com" }), "EOAC", {
    arn: "arn:aws:acm:us-east-1:1:certificate/x",
    status: "PENDING_VALIDATION",
  });
  assert.deepEqual(spec.aliases, []);
  assert.equal(spec.certificateArn, undefined);
});

Deno.test("distributionConfig() with spa keeps 404 for missing objects: the function sends routes to the shell", () => {
  const config = distributionConfig(distributionSpec(facts({ spa: true }), "EOAC"));
  assert.deepEqual(config.CustomErrorResponses!.Items, [{
    ErrorCode: 404,
    ResponsePagePath: "/404.html",
    ResponseCode: "404",
    ErrorCachingMinTTL: 10,
  }]);
});

Deno.test("distributionDrift() reports the shell answering every 404; applyManaged() replaces only that", () => {
  const spec = distributionSpec(facts({ spa: true }), "EOAC");
  const shell = {
    ...distributionConfig(spec),
    CustomErrorResponses: {
      Quantity: 1,
      Items: [{
        ErrorCode: 404,
        ResponsePagePath: "/index.html",
        ResponseCode: "200",
        ErrorCachingMinTTL: 10,
      }],
    },
  };
  assert.deepEqual(errorPagesDrift(shell), [
    "404 answered with /index.html and 200 (missing assets too), want the 404 page",
  ]);
  const fixed = applyManaged(shell, spec);
  assert.deepEqual(fixed.CustomErrorResponses, distributionConfig(spec).CustomErrorResponses);
  assert.deepEqual(errorPagesDrift(fixed), []);
  assert.deepEqual(distributionDrift(fixed, spec), []);
  // Someone's own error pages (a 403 page, a 404 page of their choosing) are theirs.
  const own = {
    ...distributionConfig(spec),
    CustomErrorResponses: {
      Quantity: 1,
      Items: [{ ErrorCode: 404, ResponsePagePath: "/missing.html", ResponseCode: "404" }],
    },
  };
  assert.deepEqual(applyManaged(own, spec).CustomErrorResponses, own.CustomErrorResponses);
  assert.deepEqual(errorPagesDrift(own), []);
});

Deno.test("distributionDrift() names each managed setting that differs; applyManaged() fixes them", () => {
  const spec = distributionSpec(facts({}), "EOAC");
  const live = { ...distributionConfig(spec), DefaultRootObject: "old.html", Enabled: false };
  assert.deepEqual(distributionDrift(live, spec), [
    "default root object old.html, want index.html",
    "enabled false, want true",
  ]);
  assert.deepEqual(distributionDrift(applyManaged(live, spec), spec), []);
});

Deno.test("distributionConfig() runs the rewrite function on viewer requests of the default behaviour", () => {
  for (const spa of [false, true]) {
    const config = distributionConfig(
      distributionSpec(facts({ spa }), "EOAC", undefined, FN_ARN),
    );
    assert.deepEqual(config.DefaultCacheBehavior!.FunctionAssociations, {
      Quantity: 1,
      Items: [{ EventType: "viewer-request", FunctionARN: FN_ARN }],
    });
    assert.equal(config.CustomErrorResponses!.Items![0]!.ResponsePagePath, "/404.html");
  }
});

Deno.test("distributionDrift() reports a distribution without the rewrite function; applyManaged() adds it", () => {
  const spec = distributionSpec(facts({}), "EOAC", undefined, FN_ARN);
  // A distribution made before the function existed.
  const old = distributionConfig(distributionSpec(facts({}), "EOAC"));
  assert.equal(old.DefaultCacheBehavior!.FunctionAssociations, undefined);
  assert.deepEqual(distributionDrift(old, spec), [
    `viewer-request function (none), want ${FN_ARN}`,
  ]);
  const fixed = applyManaged(old, spec);
  assert.deepEqual(distributionDrift(fixed, spec), []);
  assert.deepEqual(fixed.DefaultCacheBehavior!.FunctionAssociations!.Items, [
    { EventType: "viewer-request", FunctionARN: FN_ARN },
  ]);
});

Deno.test("withRewriteFunction() keeps a viewer-response function and replaces another viewer-request one", () => {
  const other = `arn:aws:cloudfront::${ACCOUNT}:function/headers`;
  assert.deepEqual(
    withRewriteFunction({
      Quantity: 2,
      Items: [
        { EventType: "viewer-request", FunctionARN: other },
        { EventType: "viewer-response", FunctionARN: other },
      ],
    }, FN_ARN),
    {
      Quantity: 2,
      Items: [
        { EventType: "viewer-response", FunctionARN: other },
        { EventType: "viewer-request", FunctionARN: FN_ARN },
      ],
    },
  );
});
