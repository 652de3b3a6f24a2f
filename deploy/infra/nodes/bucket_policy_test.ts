import assert from "node:assert/strict";
import { bucketPolicy } from "./bucket_policy.ts";
import { BUCKET, DIST_ARN } from "./_test_site.ts";

Deno.test("bucketPolicy() lets only the distribution read site/*, via the CloudFront principal", () => {
  const policy = bucketPolicy(BUCKET, DIST_ARN);
  const read = policy.Statement.find((s) => s.Action === "s3:GetObject")!;
  assert.equal(read.Effect, "Allow");
  assert.deepEqual(read.Principal, { Service: "cloudfront.amazonaws.com" });
  assert.equal(read.Resource, `arn:aws:s3:::${BUCKET}/site/*`);
  assert.deepEqual(read.Condition, { StringEquals: { "AWS:SourceArn": DIST_ARN } });
  // Every Allow is conditioned on the distribution; nothing is granted to "*".
  for (const s of policy.Statement.filter((s) => s.Effect === "Allow")) {
    assert.deepEqual(s.Condition, { StringEquals: { "AWS:SourceArn": DIST_ARN } });
  }
  const deny = policy.Statement.find((s) => s.Effect === "Deny")!;
  assert.deepEqual(deny.Condition, { Bool: { "aws:SecureTransport": "false" } });
});

Deno.test("bucketPolicy() for the preview stack lets the distribution read previews/* only", () => {
  const doc = bucketPolicy(
    "preview-blog-123456789012",
    "arn:aws:cloudfront::1:distribution/E9",
    "previews/",
  );
  const read = doc.Statement.find((s) => s.Sid === "CloudFrontReadsSite");
  assert.equal(read?.Resource, "arn:aws:s3:::preview-blog-123456789012/previews/*");
});
