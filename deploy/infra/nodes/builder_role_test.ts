import assert from "node:assert/strict";
import { builderPolicy, builderTrustPolicy } from "./builder_role.ts";
import { ACCOUNT, BUCKET } from "./_test_site.ts";

Deno.test("builderTrustPolicy() lets only the Lambda service, for this account, assume the builder role", () => {
  const trust = builderTrustPolicy(ACCOUNT);
  assert.equal(trust.Statement.length, 1);
  const [s] = trust.Statement;
  assert.equal(s!.Effect, "Allow");
  assert.deepEqual(s!.Principal, { Service: "lambda.amazonaws.com" });
  assert.deepEqual(s!.Action, ["sts:AssumeRole", "sts:TagSession"]);
  assert.deepEqual(s!.Condition, { StringEquals: { "aws:SourceAccount": ACCOUNT } });
});

Deno.test("builderPolicy() reads build/ and builder/, writes site/, builds/ and cache/, logs to the builder group only", () => {
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
  const written = [`${bucketArn}/builds/*`, `${bucketArn}/outputs/*`, `${bucketArn}/site/*`];
  const cache = `${bucketArn}/cache/*`;
  assert.deepEqual(
    allowed("s3:GetObject"),
    [
      `${bucketArn}/build/*`,
      `${bucketArn}/builder/*`,
      ...written,
      cache,
    ].sort(),
  );
  assert.deepEqual(allowed("s3:PutObject"), [...written, cache].sort());
  assert.deepEqual(allowed("s3:DeleteObject"), [...written, cache].sort());
  assert.deepEqual(allowed("s3:AbortMultipartUpload"), written);
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

Deno.test("builderPolicy() reads exactly the secrets build.secrets names, and none without it", () => {
  const input = {
    accountId: ACCOUNT,
    region: "eu-west-1",
    bucket: BUCKET,
    builderLogGroup: "/aws/microvms/production-blog-builder",
  };
  const secretsOf = (policy: ReturnType<typeof builderPolicy>) =>
    policy.Statement.filter((s) => [s.Action].flat().includes("secretsmanager:GetSecretValue"))
      .flatMap((s) => [s.Resource ?? []].flat());
  assert.deepEqual(secretsOf(builderPolicy(input)), []);
  assert.deepEqual(secretsOf(builderPolicy({ ...input, buildSecrets: ["blog/cms", "blog/cms"] })), [
    `arn:aws:secretsmanager:eu-west-1:${ACCOUNT}:secret:blog/cms-??????`,
  ]);
});
