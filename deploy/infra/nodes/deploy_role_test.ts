import assert from "node:assert/strict";
import * as MicrovmsSdk from "@aws-sdk/client-lambda-microvms";
import { deployPolicy, trustPolicy } from "./deploy_role.ts";
import { oidcProviderArn } from "./oidc_provider.ts";
import { ACCOUNT, BUCKET, DIST_ARN } from "./_test_site.ts";

const DEPLOY_POLICY_INPUT = {
  accountId: ACCOUNT,
  region: "eu-west-1",
  bucket: BUCKET,
  distributionArn: DIST_ARN,
  builderLogGroup: "/aws/microvms/production-blog-builder",
  builderImage: "production-blog-builder",
  builderRole: "production-blog-builder",
};

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

Deno.test("deployPolicy() lets production read and store the publishing session, and nothing else of Secrets Manager", () => {
  assert.ok(!JSON.stringify(deployPolicy(DEPLOY_POLICY_INPUT)).includes("secretsmanager"));
  const policy = deployPolicy({ ...DEPLOY_POLICY_INPUT, pdsSecretName: "blog/atproto" });
  const secret = policy.Statement.filter((s) =>
    [s.Action].flat().some((a) => a.startsWith("secretsmanager:"))
  );
  assert.deepEqual(secret, [{
    Sid: "PublishingSession",
    Effect: "Allow",
    Action: ["secretsmanager:GetSecretValue", "secretsmanager:PutSecretValue"],
    Resource:
      `arn:aws:secretsmanager:${DEPLOY_POLICY_INPUT.region}:${ACCOUNT}:secret:blog/atproto-*`,
  }]);
});

Deno.test("deployPolicy() without a distribution (the preview role) grants no CloudFront action", () => {
  const doc = deployPolicy({
    accountId: "123456789012",
    region: "eu-west-1",
    bucket: "preview-blog-123456789012",
    builderLogGroup: "/aws/microvms/preview-blog-builder",
    builderImage: "preview-blog-builder",
    builderRole: "preview-blog-builder",
  });
  assert.ok(!JSON.stringify(doc).includes("cloudfront:"));
  assert.ok(!JSON.stringify(doc).includes("secretsmanager:"));
  assert.ok(!JSON.stringify(doc).includes("production-"));
});
