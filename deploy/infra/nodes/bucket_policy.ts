/**
 * The bucket policy: the only reader of the bucket is the site's distribution, through Origin
 * Access Control (the CloudFront service principal, conditioned on the distribution's ARN).
 *
 * @module
 */
import {
  DeleteBucketPolicyCommand,
  GetBucketPolicyCommand,
  PutBucketPolicyCommand,
} from "@aws-sdk/client-s3";
import { servedPrefix, SITE_PREFIX } from "../../state/bucket_layout.ts";
import { aws, awsMaybe } from "../../aws/errors.ts";
import { type PolicyDocument, samePolicy } from "../policy_document.ts";
import type { NodeContext, ResourceNode } from "../resource.ts";
import { requireOutput } from "./outputs.ts";

/**
 * The bucket policy (pure): CloudFront may read `site/*` (and list, so a missing file is a 404
 * rather than a 403) only on behalf of `distributionArn`; plain-HTTP access is denied.
 *
 * @param bucket bucket name
 * @param distributionArn the distribution allowed to read
 * @returns the policy document
 *
 * @example
 * ```ts
 * bucketPolicy("production-blog-123456789012", "arn:aws:cloudfront::123456789012:distribution/E1");
 * ```
 */
export function bucketPolicy(
  bucket: string,
  distributionArn: string,
  prefix: string = SITE_PREFIX,
): PolicyDocument {
  const bucketArn = `arn:aws:s3:::${bucket}`;
  const fromDistribution = { StringEquals: { "AWS:SourceArn": distributionArn } };
  return {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "CloudFrontReadsSite",
        Effect: "Allow",
        Principal: { Service: "cloudfront.amazonaws.com" },
        Action: "s3:GetObject",
        Resource: `${bucketArn}/${prefix}*`,
        Condition: fromDistribution,
      },
      {
        Sid: "CloudFrontListsForNotFound",
        Effect: "Allow",
        Principal: { Service: "cloudfront.amazonaws.com" },
        Action: "s3:ListBucket",
        Resource: bucketArn,
        Condition: fromDistribution,
      },
      {
        Sid: "DenyInsecureTransport",
        Effect: "Deny",
        Principal: "*",
        Action: "s3:*",
        Resource: [bucketArn, `${bucketArn}/*`],
        Condition: { Bool: { "aws:SecureTransport": "false" } },
      },
    ],
  };
}

function desired(ctx: NodeContext): PolicyDocument {
  return bucketPolicy(
    ctx.facts.bucket,
    requireOutput(ctx, "distribution", "arn"),
    servedPrefix(ctx.facts.preview !== undefined),
  );
}

async function put(ctx: NodeContext) {
  const policy = desired(ctx);
  await aws(
    { resource: `bucket ${ctx.facts.bucket} policy`, action: "s3:PutBucketPolicy" },
    () =>
      ctx.clients.s3.send(
        new PutBucketPolicyCommand({ Bucket: ctx.facts.bucket, Policy: JSON.stringify(policy) }),
      ),
  );
  return { bucket: ctx.facts.bucket, distributionArn: requireOutput(ctx, "distribution", "arn") };
}

/** The bucket policy node. */
export const bucketPolicyNode: ResourceNode = {
  id: "bucketPolicy",
  dependsOn: ["bucket", "distribution"],
  wanted: () => true,
  label: (facts) => `bucket policy of ${facts.bucket}`,
  async read(ctx) {
    const out = await awsMaybe(
      { resource: `bucket ${ctx.facts.bucket} policy`, action: "s3:GetBucketPolicy" },
      () => ctx.clients.s3.send(new GetBucketPolicyCommand({ Bucket: ctx.facts.bucket })),
      "NoSuchBucketPolicy",
    );
    if (out === undefined) return null;
    const arn = ctx.outputs.distribution?.arn;
    const drift = typeof arn !== "string" ? ["no distribution to allow"] : samePolicy(
        out.Policy,
        bucketPolicy(ctx.facts.bucket, arn, servedPrefix(ctx.facts.preview !== undefined)),
      )
      ? []
      : ["policy differs from the OAC-only policy"];
    return {
      outputs: { bucket: ctx.facts.bucket, distributionArn: typeof arn === "string" ? arn : null },
      drift,
    };
  },
  create: put,
  update: put,
  async delete(ctx) {
    await awsMaybe(
      { resource: `bucket ${ctx.facts.bucket} policy`, action: "s3:DeleteBucketPolicy" },
      () => ctx.clients.s3.send(new DeleteBucketPolicyCommand({ Bucket: ctx.facts.bucket })),
    );
  },
};
