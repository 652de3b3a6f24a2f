/**
 * The deploy role `<env>-<siteName>-gh`, created when `githubRepo` is set: assumable only by
 * GitHub Actions runs of that repository (web identity through the OIDC provider), with a
 * least-privilege inline policy for deploying this site.
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
import { builderImageName, builderRoleName } from "../../config/names.ts";
import { aws, awsErrorCode, awsMaybe } from "../aws_errors.ts";
import type { PolicyDocument } from "../policy_document.ts";
import { samePolicy } from "../policy_document.ts";
import type { NodeContext, ResourceNode, SiteFacts } from "../resource.ts";
import { GITHUB_OIDC_AUDIENCE, GITHUB_OIDC_HOST } from "./oidc_provider.ts";
import { requireOutput } from "./outputs.ts";

/** The inline policy's name on the role. */
export const DEPLOY_POLICY_NAME = "deploy";

/**
 * The role's trust policy (pure): web identity from the GitHub OIDC provider, audience
 * `sts.amazonaws.com`, subject any ref/environment of exactly `githubRepo`.
 *
 * @param providerArn the OIDC provider's ARN
 * @param githubRepo `owner/repo`
 * @returns the trust policy
 *
 * @example
 * ```ts
 * trustPolicy("arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com", "acme/blog");
 * ```
 */
export function trustPolicy(providerArn: string, githubRepo: string): PolicyDocument {
  return {
    Version: "2012-10-17",
    Statement: [{
      Effect: "Allow",
      Principal: { Federated: providerArn },
      Action: "sts:AssumeRoleWithWebIdentity",
      Condition: {
        StringEquals: { [`${GITHUB_OIDC_HOST}:aud`]: GITHUB_OIDC_AUDIENCE },
        StringLike: { [`${GITHUB_OIDC_HOST}:sub`]: `repo:${githubRepo}:*` },
      },
    }],
  };
}

/** What the inline policy needs to name. */
export interface DeployPolicyInput {
  accountId: string;
  region: string;
  bucket: string;
  distributionArn: string;
  builderLogGroup: string;
  /** The builder image's name, `<env>-<siteName>-builder`. */
  builderImage: string;
  /** The builder role's name (passed to the MicroVMs service), `<env>-<siteName>-builder`. */
  builderRole: string;
}

/**
 * The MicroVMs actions a deploy runs (IAM prefix `lambda:`, the service's signing name; names
 * are the SDK's operation names): keep the builder image current, launch, watch, keep alive and
 * terminate the builder MicroVM.
 */
export const DEPLOY_MICROVM_ACTIONS: readonly string[] = [
  "lambda:GetMicrovmImage",
  "lambda:CreateMicrovmImage",
  "lambda:UpdateMicrovmImage",
  "lambda:TagResource",
  "lambda:RunMicrovm",
  "lambda:GetMicrovm",
  "lambda:ListMicrovms",
  "lambda:CreateMicrovmAuthToken",
  "lambda:TerminateMicrovm",
];

/**
 * The deploy role's inline policy (pure): objects in this bucket (no bucket administration),
 * invalidations of this distribution, the builder image and its MicroVMs (built on an
 * AWS-managed base image), passing the builder role to the MicroVMs service, and the builder
 * log group.
 *
 * @param input account, region and resource names
 * @returns the policy document
 */
export function deployPolicy(input: DeployPolicyInput): PolicyDocument {
  const bucketArn = `arn:aws:s3:::${input.bucket}`;
  const logGroupArn =
    `arn:aws:logs:${input.region}:${input.accountId}:log-group:${input.builderLogGroup}`;
  const lambda = `arn:aws:lambda:${input.region}:${input.accountId}`;
  return {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "ListSiteBucket",
        Effect: "Allow",
        Action: ["s3:ListBucket", "s3:GetBucketLocation"],
        Resource: bucketArn,
      },
      {
        Sid: "SiteObjects",
        Effect: "Allow",
        Action: [
          "s3:GetObject",
          "s3:PutObject",
          "s3:DeleteObject",
          "s3:GetObjectTagging",
          "s3:PutObjectTagging",
        ],
        Resource: `${bucketArn}/*`,
      },
      {
        Sid: "InvalidateDistribution",
        Effect: "Allow",
        Action: [
          "cloudfront:CreateInvalidation",
          "cloudfront:GetInvalidation",
          "cloudfront:ListInvalidations",
          "cloudfront:GetDistribution",
        ],
        Resource: input.distributionArn,
      },
      {
        Sid: "Builder",
        Effect: "Allow",
        Action: [...DEPLOY_MICROVM_ACTIONS],
        Resource: [
          `${lambda}:microvm-image:${input.builderImage}`,
          `${lambda}:microvm-image:${input.builderImage}:*`,
          `${lambda}:microvm:*`,
          // AWS-managed base images live in the "aws" account of the region.
          `arn:aws:lambda:${input.region}:aws:microvm-image:*`,
        ],
      },
      {
        Sid: "PassBuilderRole",
        Effect: "Allow",
        Action: "iam:PassRole",
        Resource: `arn:aws:iam::${input.accountId}:role/${input.builderRole}`,
        Condition: { StringEquals: { "iam:PassedToService": "lambda.amazonaws.com" } },
      },
      {
        Sid: "BuilderLogs",
        Effect: "Allow",
        Action: [
          "logs:CreateLogStream",
          "logs:PutLogEvents",
          "logs:DescribeLogStreams",
          "logs:GetLogEvents",
          "logs:FilterLogEvents",
        ],
        Resource: [logGroupArn, `${logGroupArn}:*`],
      },
    ],
  };
}

function policyInput(ctx: NodeContext): DeployPolicyInput {
  const f = ctx.facts;
  return {
    accountId: f.accountId,
    region: f.config.region,
    bucket: f.bucket,
    distributionArn: requireOutput(ctx, "distribution", "arn"),
    builderLogGroup: f.builderLogGroup,
    builderImage: builderImageName(f.env, f.config.siteName),
    builderRole: builderRoleName(f.env, f.config.siteName),
  };
}

async function putPolicies(ctx: NodeContext, exists: boolean): Promise<void> {
  const { iam } = ctx.clients;
  const RoleName = ctx.facts.deployRole;
  const resource = `role ${RoleName}`;
  const trust = JSON.stringify(
    trustPolicy(requireOutput(ctx, "oidcProvider", "arn"), ctx.facts.config.githubRepo!),
  );
  if (exists) {
    await aws(
      { resource, action: "iam:UpdateAssumeRolePolicy" },
      () => iam.send(new UpdateAssumeRolePolicyCommand({ RoleName, PolicyDocument: trust })),
    );
    await aws(
      { resource, action: "iam:TagRole" },
      () => iam.send(new TagRoleCommand({ RoleName, Tags: tagList(ctx.facts) })),
    );
  }
  await aws({ resource, action: "iam:PutRolePolicy" }, () =>
    iam.send(
      new PutRolePolicyCommand({
        RoleName,
        PolicyName: DEPLOY_POLICY_NAME,
        PolicyDocument: JSON.stringify(deployPolicy(policyInput(ctx))),
      }),
    ));
}

function tagList(facts: SiteFacts) {
  return Object.entries(facts.tags).map(([Key, Value]) => ({ Key, Value }));
}

async function inlinePolicy(iam: IAMClient, RoleName: string): Promise<string | undefined> {
  const out = await awsMaybe(
    { resource: `role ${RoleName}`, action: "iam:GetRolePolicy" },
    () => iam.send(new GetRolePolicyCommand({ RoleName, PolicyName: DEPLOY_POLICY_NAME })),
  );
  return out?.PolicyDocument;
}

/** The deploy role node. */
export const deployRoleNode: ResourceNode = {
  id: "deployRole",
  dependsOn: ["oidcProvider", "bucket", "distribution", "builderLogGroup", "builderRole"],
  wanted: (facts) => facts.config.githubRepo !== undefined,
  label: (facts) => `role ${facts.deployRole}`,
  async read(ctx) {
    const { iam } = ctx.clients;
    const RoleName = ctx.facts.deployRole;
    const out = await awsMaybe(
      { resource: `role ${RoleName}`, action: "iam:GetRole" },
      () => iam.send(new GetRoleCommand({ RoleName })),
    );
    if (!out?.Role) return null;
    const drift: string[] = [];
    const repo = ctx.facts.config.githubRepo;
    const provider = ctx.outputs.oidcProvider?.arn;
    if (repo !== undefined && typeof provider === "string") {
      if (!samePolicy(out.Role.AssumeRolePolicyDocument, trustPolicy(provider, repo))) {
        drift.push(`trust policy is not scoped to repo:${repo}:*`);
      }
    }
    if (typeof ctx.outputs.distribution?.arn === "string") {
      if (!samePolicy(await inlinePolicy(iam, RoleName), deployPolicy(policyInput(ctx)))) {
        drift.push(`inline policy "${DEPLOY_POLICY_NAME}" differs`);
      }
    }
    const tags = Object.fromEntries((out.Role.Tags ?? []).map((t) => [t.Key, t.Value]));
    for (const [k, v] of Object.entries(ctx.facts.tags)) {
      if (tags[k] !== v) drift.push(`tag ${k}=${tags[k] ?? "(missing)"}, want ${v}`);
    }
    return { outputs: { name: RoleName, arn: out.Role.Arn ?? "" }, drift };
  },
  async create(ctx) {
    const { iam } = ctx.clients;
    const RoleName = ctx.facts.deployRole;
    let arn: string | undefined;
    let existed = false;
    await aws({ resource: `role ${RoleName}`, action: "iam:CreateRole" }, async () => {
      try {
        const out = await iam.send(
          new CreateRoleCommand({
            RoleName,
            Description: `deploy ${ctx.facts.bucket} from GitHub ${ctx.facts.config.githubRepo}`,
            AssumeRolePolicyDocument: JSON.stringify(
              trustPolicy(requireOutput(ctx, "oidcProvider", "arn"), ctx.facts.config.githubRepo!),
            ),
            Tags: tagList(ctx.facts),
          }),
        );
        arn = out.Role?.Arn;
      } catch (err) {
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
    const RoleName = ctx.facts.deployRole;
    const resource = `role ${RoleName}`;
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
