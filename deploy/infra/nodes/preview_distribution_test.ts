import assert from "node:assert/strict";
import {
  CACHING_DISABLED_POLICY_ID,
  previewDistributionConfig,
  previewDistributionDrift,
  previewDistributionSpec,
} from "./distribution.ts";

const input = {
  bucket: "preview-blog-123456789012",
  region: "eu-west-1",
  domain: "preview.example.com",
  oacId: "EOAC1",
  routerArn: "arn:aws:cloudfront::123456789012:function/preview-blog-router",
};

Deno.test("preview distribution: whole bucket origin, router on viewer requests, no caching, no error pages", () => {
  const config = previewDistributionConfig(previewDistributionSpec(input));
  const origin = config.Origins?.Items?.[0];
  assert.equal(origin?.DomainName, "preview-blog-123456789012.s3.eu-west-1.amazonaws.com");
  assert.equal(origin?.OriginPath, "");
  assert.equal(origin?.OriginAccessControlId, "EOAC1");
  assert.equal(config.DefaultCacheBehavior?.CachePolicyId, CACHING_DISABLED_POLICY_ID);
  assert.deepEqual(config.DefaultCacheBehavior?.FunctionAssociations, {
    Quantity: 1,
    Items: [{ EventType: "viewer-request", FunctionARN: input.routerArn }],
  });
  assert.equal(config.DefaultCacheBehavior?.ViewerProtocolPolicy, "redirect-to-https");
  assert.deepEqual(config.CustomErrorResponses, { Quantity: 0 });
  assert.equal(config.DefaultRootObject, "");
  assert.equal(config.CallerReference, "deploy-preview-blog-123456789012");
  // Until the wildcard certificate is issued: the CloudFront domain only.
  assert.deepEqual(config.Aliases, { Quantity: 0 });
  assert.deepEqual(config.ViewerCertificate, {
    CloudFrontDefaultCertificate: true,
    MinimumProtocolVersion: "TLSv1",
  });
});

Deno.test("preview distribution: the wildcard alias and certificate once the certificate is issued", () => {
  const arn = "arn:aws:acm:us-east-1:123456789012:certificate/abc";
  const pending = previewDistributionSpec({
    ...input,
    certificate: { arn, status: "PENDING_VALIDATION" },
  });
  assert.deepEqual(pending.aliases, []);
  const config = previewDistributionConfig(
    previewDistributionSpec({
      ...input,
      domain: "Preview.Example.com",
      certificate: { arn, status: "ISSUED" },
    }),
  );
  assert.deepEqual(config.Aliases, { Quantity: 1, Items: ["*.preview.example.com"] });
  assert.equal(config.ViewerCertificate?.ACMCertificateArn, arn);
  assert.equal(config.ViewerCertificate?.SSLSupportMethod, "sni-only");
});

Deno.test("previewDistributionDrift(): none when in line; cache policy, error pages and alias drift named", () => {
  const spec = previewDistributionSpec(input);
  const config = previewDistributionConfig(spec);
  assert.deepEqual(previewDistributionDrift(config, spec), []);
  const drifted = {
    ...config,
    DefaultCacheBehavior: {
      ...config.DefaultCacheBehavior!,
      CachePolicyId: "658327ea-f89d-4fab-a63d-7e88639e58f6",
    },
    CustomErrorResponses: {
      Quantity: 1,
      Items: [{ ErrorCode: 404, ResponsePagePath: "/index.html", ResponseCode: "200" }],
    },
  };
  assert.deepEqual(previewDistributionDrift(drifted, spec), [
    `cache policy 658327ea-f89d-4fab-a63d-7e88639e58f6, want ${CACHING_DISABLED_POLICY_ID}`,
    "1 custom error response(s), want none",
  ]);
  const issued = previewDistributionSpec({
    ...input,
    certificate: { arn: "arn:c", status: "ISSUED" },
  });
  assert.deepEqual(previewDistributionDrift(config, issued), [
    "aliases (none), want *.preview.example.com",
    "certificate (default), want arn:c",
  ]);
});
