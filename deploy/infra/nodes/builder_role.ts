/**
 * The MicroVM builder's role `<env>-<siteName>-builder`: assumed by the Lambda service
 * (`lambda.amazonaws.com`, the principal the MicroVMs documentation names for both the build
 * and the execution role) to build the builder image and to run the builder MicroVM. One role
 * serves both, because both phases touch the same few resources of this one site: the image
 * build reads the agent bundle (`builder/*`), the running agent reads the source (`build/*`),
 * writes the live site (`site/*`) and the build records (`builds/*`), and both log to the
 * builder log group.
 *
 * @module
 */
import {
  CreateRoleCommand,
  DeleteRoleCommand,
  DeleteRolePolicyCommand,
  GetRoleCommand,
  GetRolePolicyCommand,
  type IAMClient,
  ListRolePoliciesCommand,
  PutRolePolicyCommand,
  TagRoleCommand,
  UpdateAssumeRolePolicyCommand,
} from "@aws-sdk/client-iam";
import { builderRoleName } from "../../config/names.ts";
import { aws, awsErrorCode, awsMaybe } from "../aws_errors.ts";
import { type PolicyDocument, samePolicy } from "../policy_document.ts";
import type { NodeContext, ResourceNode, SiteFacts } from "../resource.ts";

/** The inline policy's name on the builder role. */
export const BUILDER_POLICY_NAME = "builder";

/** The service principal that assumes MicroVM build and execution roles. */
export const MICROVMS_SERVICE_PRINCIPAL = "lambda.amazonaws.com";

/**
 * The builder role's trust policy (pure): the Lambda service, on behalf of this account only
 * (`aws:SourceAccount`, against the confused deputy), may assume it and tag the session.
 *
 * @param accountId the AWS account id
 * @returns the trust policy
 *
 * @example
 * ```ts
 * builderTrustPolicy("123456789012").Statement[0]!.Principal; // { Service: "lambda.amazonaws.com" }
 * ```
 */
export function builderTrustPolicy(accountId: string): PolicyDocument {
  return {
    Version: "2012-10-17",
    Statement: [{
      Effect: "Allow",
      Principal: { Service: MICROVMS_SERVICE_PRINCIPAL },
      Action: ["sts:AssumeRole", "sts:TagSession"],
      Condition: { StringEquals: { "aws:SourceAccount": accountId } },
    }],
  };
}

/** What the builder role's inline policy names. */
export interface BuilderPolicyInput {
  accountId: string;
  region: string;
  bucket: string;
  builderLogGroup: string;
}

/**
 * The builder role's inline policy (pure): read `build/*` (sources) and `builder/*` (the agent
 * bundle), read and write `site/*` (the live site) and `builds/*` (records and manifests), list
 * the bucket (the sync compares against the live listing), and write log streams of the
 * builder log group. Nothing else: no bucket administration, no other bucket, no other group.
 *
 * @param input account, region, bucket and log group
 * @returns the policy document
 */
export function builderPolicy(input: BuilderPolicyInput): PolicyDocument {
  const bucketArn = `arn:aws:s3:::${input.bucket}`;
  const logGroupArn =
    `arn:aws:logs:${input.region}:${input.accountId}:log-group:${input.builderLogGroup}`;
  return {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "ListSiteBucket",
        Effect: "Allow",
        Action: "s3:ListBucket",
        Resource: bucketArn,
      },
      {
        Sid: "ReadSourcesAndAgent",
        Effect: "Allow",
        Action: "s3:GetObject",
        Resource: [`${bucketArn}/build/*`, `${bucketArn}/builder/*`],
      },
      {
        Sid: "WriteSiteAndRecords",
        Effect: "Allow",
        Action: [
          "s3:GetObject",
          "s3:PutObject",
          "s3:DeleteObject",
          "s3:GetObjectTagging",
          "s3:PutObjectTagging",
        ],
        Resource: [`${bucketArn}/site/*`, `${bucketArn}/builds/*`],
      },
      {
        Sid: "BuilderLogs",
        Effect: "Allow",
        Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
        Resource: [logGroupArn, `${logGroupArn}:*`],
      },
    ],
  };
}

/**
 * The builder role's name for a site.
 *
 * @param facts the site
 * @returns `<env>-<siteName>-builder`
 */
export function builderRole(facts: SiteFacts): string {
  return builderRoleName(facts.env, facts.config.siteName);
}

function policyInput(facts: SiteFacts): BuilderPolicyInput {
  return {
    accountId: facts.accountId,
    region: facts.config.region,
    bucket: facts.bucket,
    builderLogGroup: facts.builderLogGroup,
  };
}

function tagList(facts: SiteFacts) {
  return Object.entries(facts.tags).map(([Key, Value]) => ({ Key, Value }));
}

async function putPolicies(ctx: NodeContext, exists: boolean): Promise<void> {
  const { iam } = ctx.clients;
  const RoleName = builderRole(ctx.facts);
  const resource = `role ${RoleName}`;
  if (exists) {
    await aws({ resource, action: "iam:UpdateAssumeRolePolicy" }, () =>
      iam.send(
        new UpdateAssumeRolePolicyCommand({
          RoleName,
          PolicyDocument: JSON.stringify(builderTrustPolicy(ctx.facts.accountId)),
        }),
      ));
    await aws(
      { resource, action: "iam:TagRole" },
      () => iam.send(new TagRoleCommand({ RoleName, Tags: tagList(ctx.facts) })),
    );
  }
  await aws({ resource, action: "iam:PutRolePolicy" }, () =>
    iam.send(
      new PutRolePolicyCommand({
        RoleName,
        PolicyName: BUILDER_POLICY_NAME,
        PolicyDocument: JSON.stringify(builderPolicy(policyInput(ctx.facts))),
      }),
    ));
}

async function inlinePolicy(iam: IAMClient, RoleName: string): Promise<string | undefined> {
  const out = await awsMaybe(
    { resource: `role ${RoleName}`, action: "iam:GetRolePolicy" },
    () => iam.send(new GetRolePolicyCommand({ RoleName, PolicyName: BUILDER_POLICY_NAME })),
  );
  return out?.PolicyDocument;
}

/** The builder role node. */
export const builderRoleNode: ResourceNode = {
  id: "builderRole",
  dependsOn: ["bucket", "builderLogGroup"],
  wanted: () => true,
  label: (facts) => `role ${builderRole(facts)}`,
  async read(ctx) {
    const { iam } = ctx.clients;
    const RoleName = builderRole(ctx.facts);
    const out = await awsMaybe(
      { resource: `role ${RoleName}`, action: "iam:GetRole" },
      () => iam.send(new GetRoleCommand({ RoleName })),
    );
    if (!out?.Role) return null;
    const drift: string[] = [];
    if (
      !samePolicy(out.Role.AssumeRolePolicyDocument, builderTrustPolicy(ctx.facts.accountId))
    ) {
      drift.push(`trust policy is not ${MICROVMS_SERVICE_PRINCIPAL} for this account`);
    }
    if (!samePolicy(await inlinePolicy(iam, RoleName), builderPolicy(policyInput(ctx.facts)))) {
      drift.push(`inline policy "${BUILDER_POLICY_NAME}" differs`);
    }
    const tags = Object.fromEntries((out.Role.Tags ?? []).map((t) => [t.Key, t.Value]));
    for (const [k, v] of Object.entries(ctx.facts.tags)) {
      if (tags[k] !== v) drift.push(`tag ${k}=${tags[k] ?? "(missing)"}, want ${v}`);
    }
    return { outputs: { name: RoleName, arn: out.Role.Arn ?? "" }, drift };
  },
  async create(ctx) {
    const { iam } = ctx.clients;
    const RoleName = builderRole(ctx.facts);
    let arn: string | undefined;
    let existed = false;
    await aws({ resource: `role ${RoleName}`, action: "iam:CreateRole" }, async () => {
      try {
        const out = await iam.send(
          new CreateRoleCommand({
            RoleName,
            Description: `MicroVM builder of ${ctx.facts.bucket}`,
            AssumeRolePolicyDocument: JSON.stringify(builderTrustPolicy(ctx.facts.accountId)),
            Tags: tagList(ctx.facts),
          }),
        );
        arn = out.Role?.Arn;
      } catch (err) {
        // Created by a run that crashed before recording it: adopt it.
        if (awsErrorCode(err) !== "EntityAlreadyExists") throw err;
        existed = true;
        arn = (await iam.send(new GetRoleCommand({ RoleName }))).Role?.Arn;
      }
    });
    await putPolicies(ctx, existed);
    return { name: RoleName, arn: arn ?? "" };
  },
  async update(ctx, live) {
    await putPolicies(ctx, true);
    return live.outputs;
  },
  async delete(ctx) {
    const { iam } = ctx.clients;
    const RoleName = builderRole(ctx.facts);
    const resource = `role ${RoleName}`;
    // IAM refuses to delete a role that still has inline policies.
    const names = await awsMaybe(
      { resource, action: "iam:ListRolePolicies" },
      () => iam.send(new ListRolePoliciesCommand({ RoleName })),
    );
    for (const PolicyName of names?.PolicyNames ?? []) {
      await awsMaybe(
        { resource, action: "iam:DeleteRolePolicy" },
        () => iam.send(new DeleteRolePolicyCommand({ RoleName, PolicyName })),
      );
    }
    await awsMaybe(
      { resource, action: "iam:DeleteRole" },
      () => iam.send(new DeleteRoleCommand({ RoleName })),
    );
  },
};
