import assert from "node:assert/strict";
import { resolveSiteConfig, type SiteConfig } from "../config/site_config.ts";
import {
  ABORT_INCOMPLETE_UPLOADS_RULE,
  abortsIncompleteUploads,
  bucketDrift,
  PUBLIC_ACCESS_BLOCK,
  withIncompleteUploadRule,
} from "./nodes/bucket.ts";
import * as MicrovmsSdk from "@aws-sdk/client-lambda-microvms";
import { bucketPolicy } from "./nodes/bucket_policy.ts";
import { builderPolicy, builderTrustPolicy } from "./nodes/builder_role.ts";
import { deployPolicy, trustPolicy } from "./nodes/deploy_role.ts";
import {
  applyManaged,
  distributionConfig,
  distributionDrift,
  distributionSpec,
  withRewriteFunction,
} from "./nodes/distribution.ts";
import { logRetentionDays } from "./nodes/log_group.ts";
import {
  CDN_LOG_FORMAT,
  CDN_LOG_TYPE,
  cdnLogDeliveryDrift,
  cdnLogDeliverySpec,
} from "./nodes/cdn_log_delivery.ts";
import { oidcProviderArn } from "./nodes/oidc_provider.ts";
import { canonicalJson, samePolicy } from "./policy_document.ts";
import type { SiteFacts } from "./resource.ts";

const ACCOUNT = "123456789012";
const BUCKET = `production-blog-${ACCOUNT}`;
const DIST_ARN = `arn:aws:cloudfront::${ACCOUNT}:distribution/E1`;

function facts(raw: Record<string, unknown>): SiteFacts {
  const result = resolveSiteConfig({ siteName: "blog", ...raw }, {
    env: "production",
    repoDir: "/src/blog",
    accountId: ACCOUNT,
  });
  if (!("config" in result)) throw new Error(JSON.stringify(result.errors));
  const config: SiteConfig = result.config;
  return {
    env: "production",
    accountId: ACCOUNT,
    config,
    bucket: BUCKET,
    builderLogGroup: "/aws/microvms/production-blog-builder",
    cdnLogGroup: "/blog/production/cloudfront",
    deployRole: "production-blog-gh",
    tags: { app: config.app, environment: "production" },
  };
}

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

Deno.test("samePolicy() compares documents as data, whatever the key order or URL encoding", () => {
  const policy = bucketPolicy(BUCKET, DIST_ARN);
  const reordered = JSON.stringify(JSON.parse(canonicalJson(policy)));
  assert.ok(samePolicy(reordered, policy));
  assert.ok(samePolicy(encodeURIComponent(JSON.stringify(policy)), policy));
  assert.ok(!samePolicy(JSON.stringify(bucketPolicy(BUCKET, DIST_ARN + "X")), policy));
  assert.ok(!samePolicy(undefined, policy));
});

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

Deno.test("distributionConfig() with spa answers unknown paths with /index.html and 200", () => {
  const config = distributionConfig(distributionSpec(facts({ spa: true }), "EOAC"));
  assert.deepEqual(config.CustomErrorResponses!.Items, [{
    ErrorCode: 404,
    ResponsePagePath: "/index.html",
    ResponseCode: "200",
    ErrorCachingMinTTL: 10,
  }]);
});

Deno.test("distributionDrift() names each managed setting that differs; applyManaged() fixes them", () => {
  const spec = distributionSpec(facts({}), "EOAC");
  const live = { ...distributionConfig(spec), DefaultRootObject: "old.html", Enabled: false };
  assert.deepEqual(distributionDrift(live, spec), [
    "default root object old.html, want index.html",
    "enabled false, want true",
  ]);
  assert.deepEqual(distributionDrift(applyManaged(live, spec), spec), []);
  // spa applies at creation only: the error pages are not managed afterwards.
  const spaSpec = distributionSpec(facts({ spa: true }), "EOAC");
  assert.deepEqual(distributionDrift(distributionConfig(spec), spaSpec), []);
});

const FN_ARN = `arn:aws:cloudfront::${ACCOUNT}:function/production-blog-rewrite`;

Deno.test("distributionConfig() runs the rewrite function on viewer requests of the default behaviour", () => {
  for (const spa of [false, true]) {
    const config = distributionConfig(
      distributionSpec(facts({ spa }), "EOAC", undefined, FN_ARN),
    );
    assert.deepEqual(config.DefaultCacheBehavior!.FunctionAssociations, {
      Quantity: 1,
      Items: [{ EventType: "viewer-request", FunctionARN: FN_ARN }],
    });
    // spa keeps its error response: a client route misses in S3, then gets /index.html.
    assert.equal(
      config.CustomErrorResponses!.Items![0]!.ResponsePagePath,
      spa ? "/index.html" : "/404.html",
    );
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

Deno.test("trustPolicy() trusts only web identities of the configured repository", () => {
  const provider = oidcProviderArn(ACCOUNT);
  const policy = trustPolicy(provider, "acme/blog");
  assert.equal(policy.Statement.length, 1);
  const s = policy.Statement[0]!;
  assert.deepEqual(s.Principal, {
    Federated: `arn:aws:iam::${ACCOUNT}:oidc-provider/token.actions.githubusercontent.com`,
  });
  assert.equal(s.Action, "sts:AssumeRoleWithWebIdentity");
  assert.deepEqual(s.Condition, {
    StringEquals: { "token.actions.githubusercontent.com:aud": "sts.amazonaws.com" },
    StringLike: { "token.actions.githubusercontent.com:sub": "repo:acme/blog:*" },
  });
});

const DEPLOY_POLICY_INPUT = {
  accountId: ACCOUNT,
  region: "eu-west-1",
  bucket: BUCKET,
  distributionArn: DIST_ARN,
  builderLogGroup: "/aws/microvms/production-blog-builder",
  builderImage: "production-blog-builder",
  builderRole: "production-blog-builder",
};

Deno.test("deployPolicy() grants objects of this bucket and invalidations of this distribution only", () => {
  const policy = deployPolicy(DEPLOY_POLICY_INPUT);
  const resources = policy.Statement.flatMap((s) => [s.Resource ?? []].flat());
  assert.ok(!resources.includes("*"), "no wildcard resource");
  const cf = policy.Statement.find((s) => s.Sid === "InvalidateDistribution")!;
  assert.equal(cf.Resource, DIST_ARN);
  const objects = policy.Statement.find((s) => s.Sid === "SiteObjects")!;
  assert.equal(objects.Resource, `arn:aws:s3:::${BUCKET}/*`);
  assert.ok(!JSON.stringify(policy).includes("s3:DeleteBucket"));
  // The only IAM permission: passing the builder role, and only to the MicroVMs service.
  const iamStatements = policy.Statement.filter((s) =>
    [s.Action].flat().some((a) => a.startsWith("iam:"))
  );
  assert.deepEqual(iamStatements, [{
    Sid: "PassBuilderRole",
    Effect: "Allow",
    Action: "iam:PassRole",
    Resource: `arn:aws:iam::${ACCOUNT}:role/production-blog-builder`,
    Condition: { StringEquals: { "iam:PassedToService": "lambda.amazonaws.com" } },
  }]);
});

Deno.test("deployPolicy() allows exactly the MicroVM operations a build runs, on this site's builder image", () => {
  const policy = deployPolicy(DEPLOY_POLICY_INPUT);
  const builder = policy.Statement.find((s) => s.Sid === "Builder")!;
  const actions = [builder.Action].flat();
  // Every action is an operation of the SDK client (IAM prefix = signing name "lambda").
  for (const action of actions) {
    const op = action.replace(/^lambda:/, "");
    assert.ok(
      `${op}Command` in MicrovmsSdk,
      `${action} is not a Lambda MicroVMs operation`,
    );
  }
  for (
    const needed of [
      "CreateMicrovmImage",
      "UpdateMicrovmImage",
      "GetMicrovmImage",
      "RunMicrovm",
      "GetMicrovm",
      "TerminateMicrovm",
      "CreateMicrovmAuthToken",
    ]
  ) assert.ok(actions.includes(`lambda:${needed}`), `missing lambda:${needed}`);
  assert.ok(!actions.includes("lambda:DeleteMicrovmImage"), "deploys never delete the image");
  const lambda = `arn:aws:lambda:eu-west-1:${ACCOUNT}`;
  assert.deepEqual(builder.Resource, [
    `${lambda}:microvm-image:production-blog-builder`,
    `${lambda}:microvm-image:production-blog-builder:*`,
    `${lambda}:microvm:*`,
    "arn:aws:lambda:eu-west-1:aws:microvm-image:*",
  ]);
});

Deno.test("builderTrustPolicy() lets only the Lambda service, for this account, assume the builder role", () => {
  const trust = builderTrustPolicy(ACCOUNT);
  assert.equal(trust.Statement.length, 1);
  const [s] = trust.Statement;
  assert.equal(s!.Effect, "Allow");
  assert.deepEqual(s!.Principal, { Service: "lambda.amazonaws.com" });
  assert.deepEqual(s!.Action, ["sts:AssumeRole", "sts:TagSession"]);
  assert.deepEqual(s!.Condition, { StringEquals: { "aws:SourceAccount": ACCOUNT } });
});

Deno.test("builderPolicy() reads build/ and builder/, writes site/ and builds/, logs to the builder group only", () => {
  const policy = builderPolicy({
    accountId: ACCOUNT,
    region: "eu-west-1",
    bucket: BUCKET,
    builderLogGroup: "/aws/microvms/production-blog-builder",
  });
  const bucketArn = `arn:aws:s3:::${BUCKET}`;
  const allowed = (action: string) =>
    policy.Statement.filter((s) => s.Effect === "Allow" && [s.Action].flat().includes(action))
      .flatMap((s) => [s.Resource ?? []].flat()).sort();
  assert.deepEqual(allowed("s3:GetObject"), [
    `${bucketArn}/build/*`,
    `${bucketArn}/builder/*`,
    `${bucketArn}/builds/*`,
    `${bucketArn}/site/*`,
  ]);
  assert.deepEqual(allowed("s3:PutObject"), [`${bucketArn}/builds/*`, `${bucketArn}/site/*`]);
  assert.deepEqual(allowed("s3:DeleteObject"), [`${bucketArn}/builds/*`, `${bucketArn}/site/*`]);
  assert.deepEqual(allowed("s3:AbortMultipartUpload"), [
    `${bucketArn}/builds/*`,
    `${bucketArn}/site/*`,
  ]);
  assert.deepEqual(allowed("s3:ListBucket"), [bucketArn]);
  assert.deepEqual(allowed("s3:GetEncryptionConfiguration"), [bucketArn]);
  const group = `arn:aws:logs:eu-west-1:${ACCOUNT}:log-group:/aws/microvms/production-blog-builder`;
  assert.deepEqual(allowed("logs:PutLogEvents"), [group, `${group}:*`]);
  assert.deepEqual(allowed("logs:CreateLogStream"), [group, `${group}:*`]);
  // Nothing beyond: no bucket administration, no state file, no other service.
  const actions = new Set(policy.Statement.flatMap((s) => [s.Action].flat()));
  assert.deepEqual(
    [...actions].filter((a) =>
      !/^(s3:(Get|Put|Delete)Object(Tagging)?|s3:AbortMultipartUpload|s3:ListBucket|s3:GetEncryptionConfiguration|logs:(CreateLogStream|PutLogEvents))$/
        .test(a)
    ),
    [],
  );
  const resources = policy.Statement.flatMap((s) => [s.Resource ?? []].flat());
  assert.ok(!resources.some((r) => r.includes("state/") || r === `${bucketArn}/*` || r === "*"));
});

Deno.test("bucketDrift() reports open public access, ACL ownership and missing tags", () => {
  const tags = { app: "blog", environment: "production" };
  assert.deepEqual(
    bucketDrift(
      {
        publicAccessBlock: PUBLIC_ACCESS_BLOCK,
        ownership: "BucketOwnerEnforced",
        tags,
        lifecycleRules: [ABORT_INCOMPLETE_UPLOADS_RULE],
      },
      tags,
    ),
    [],
  );
  assert.deepEqual(
    bucketDrift({
      publicAccessBlock: { ...PUBLIC_ACCESS_BLOCK, BlockPublicPolicy: false },
      ownership: "ObjectWriter",
      tags: { app: "blog" },
      lifecycleRules: undefined,
    }, tags),
    [
      "public access not blocked (BlockPublicPolicy off)",
      "object ownership ObjectWriter, want BucketOwnerEnforced",
      "tag environment=(missing), want production",
      "no lifecycle rule removing incomplete multipart uploads",
    ],
  );
});

Deno.test("abortsIncompleteUploads() takes an owner's equivalent rule, not a disabled or partial one", () => {
  const rule = ABORT_INCOMPLETE_UPLOADS_RULE;
  assert.ok(abortsIncompleteUploads([rule]));
  assert.ok(
    abortsIncompleteUploads([{
      ID: "mine",
      Status: "Enabled",
      AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
    }]),
  );
  assert.ok(!abortsIncompleteUploads(undefined));
  assert.ok(!abortsIncompleteUploads([{ ...rule, Status: "Disabled" }]));
  assert.ok(!abortsIncompleteUploads([{ ...rule, Filter: { Prefix: "builds/" } }]));
  // The older rule-level Prefix scopes a rule just the same.
  const { Filter: _f, ...unfiltered } = rule;
  assert.ok(!abortsIncompleteUploads([{ ...unfiltered, Prefix: "tmp/" }]));
  assert.ok(abortsIncompleteUploads([{ ...unfiltered, Prefix: "" }]));
  assert.ok(
    !abortsIncompleteUploads([{
      ID: "x",
      Status: "Enabled",
      Expiration: { Days: 30 },
      Filter: { Prefix: "" },
    }]),
  );
});

Deno.test("logRetentionDays() rounds up to a retention CloudWatch accepts", () => {
  assert.equal(logRetentionDays(90), 90);
  assert.equal(logRetentionDays(100), 120);
  assert.equal(logRetentionDays(2), 3);
  assert.equal(logRetentionDays(99999), 3653);
});

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

Deno.test("withIncompleteUploadRule() keeps the owner's rules and matches their style", () => {
  const modern = { ID: "old-builds", Status: "Enabled" as const, Filter: { Prefix: "builds/" } };
  assert.deepEqual(withIncompleteUploadRule([modern]), [modern, ABORT_INCOMPLETE_UPLOADS_RULE]);
  const legacy = { ID: "tmp", Status: "Enabled" as const, Prefix: "tmp/", Expiration: { Days: 1 } };
  const out = withIncompleteUploadRule([legacy]);
  assert.deepEqual(out[0], legacy);
  assert.equal(out[1]?.Filter, undefined, "no Filter beside a rule-level Prefix");
  assert.equal(out[1]?.Prefix, "");
  assert.ok(abortsIncompleteUploads(out));
  // A stale copy of ours is replaced, not duplicated.
  const stale = { ...ABORT_INCOMPLETE_UPLOADS_RULE, Status: "Disabled" as const };
  assert.deepEqual(withIncompleteUploadRule([stale]), [ABORT_INCOMPLETE_UPLOADS_RULE]);
});
