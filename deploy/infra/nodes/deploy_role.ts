/**
 * The deploy role `<env>-<siteName>-gh`, created when `githubRepo` is set: assumable only by
 * GitHub Actions runs of that repository (web identity through the OIDC provider), with a
 * least-privilege inline policy for deploying this site.
 *
 * @module
 */
import { microvmBuilderWanted } from "../microvm_wanted.ts";
import { builderImageName, builderRoleName, logGroupArn } from "../../config/names.ts";
import { resolvePdsConfig } from "../../config/pds_config.ts";
import type { SiteConfig } from "../../config/site_config.ts";
import type { PolicyDocument, PolicyStatement } from "../policy_document.ts";
import type { NodeContext, ResourceNode } from "../resource.ts";
import { type RulesPolicyInput, rulesPolicyInput, rulesStatements } from "./rules_policy.ts";
import { iamRoleNode, SITE_OBJECT_ACTIONS } from "./iam_role.ts";
import { GITHUB_OIDC_AUDIENCE, GITHUB_OIDC_HOST } from "./oidc_provider.ts";
import { optionalOutput, requireOutput } from "./outputs.ts";

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
  /**
   * The distribution the role may invalidate; absent for the preview role, which serves
   * uncached and gets no invalidation rights.
   */
  distributionArn?: string;
  builderLogGroup: string;
  /** The builder image's name, `<env>-<siteName>-builder`. */
  builderImage: string;
  /** The builder role's name (passed to the MicroVMs service), `<env>-<siteName>-builder`. */
  builderRole: string;
  /**
   * The site builds on the deploying machine (`build.builder: "local"`): no MicroVM image,
   * builder role or builder log group exists, so the role gets no rights on them.
   */
  localBuilder?: boolean;
  /**
   * `pds.secretName` when production publishes to a PDS: the sync after a deploy reads the
   * session and stores each rotated one (docs/pds.md).
   */
  pdsSecretName?: string;
  /** The site's rules (absent for the preview stack, which runs none). */
  rules?: RulesPolicyInput;
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

/** Invalidating the one distribution (and reading what the invalidation needs). */
function invalidateStatement(distributionArn: string): PolicyStatement {
  return {
    Sid: "InvalidateDistribution",
    Effect: "Allow",
    Action: [
      "cloudfront:CreateInvalidation",
      "cloudfront:GetInvalidation",
      "cloudfront:ListInvalidations",
      "cloudfront:GetDistribution",
    ],
    Resource: distributionArn,
  };
}

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
  return {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "ListSiteBucket",
        Effect: "Allow",
        // The encryption tells the sync whether ETags are MD5s (not under KMS).
        Action: ["s3:ListBucket", "s3:GetBucketLocation", "s3:GetEncryptionConfiguration"],
        Resource: bucketArn,
      },
      {
        Sid: "SiteObjects",
        Effect: "Allow",
        Action: [...SITE_OBJECT_ACTIONS],
        Resource: `${bucketArn}/*`,
      },
      ...(input.distributionArn === undefined ? [] : [invalidateStatement(input.distributionArn)]),
      ...(input.rules === undefined ? [] : rulesStatements(input.rules)),
      ...(input.localBuilder === true ? [] : builderStatements(input)),
      ...(input.pdsSecretName === undefined ? [] : [{
        Sid: "PublishingSession",
        Effect: "Allow" as const,
        Action: ["secretsmanager:GetSecretValue", "secretsmanager:PutSecretValue"],
        // Secrets Manager appends six random characters to a secret's ARN.
        Resource:
          `arn:aws:secretsmanager:${input.region}:${input.accountId}:secret:${input.pdsSecretName}-*`,
      }]),
    ],
  };
}

/** The MicroVM builder's statements: its image and MicroVMs, passing its role, its log group. */
function builderStatements(input: DeployPolicyInput): PolicyStatement[] {
  const logGroup = logGroupArn(input.region, input.accountId, input.builderLogGroup);
  const lambda = `arn:aws:lambda:${input.region}:${input.accountId}`;
  return [
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
      Resource: [logGroup, `${logGroup}:*`],
    },
  ];
}

function policyInput(ctx: NodeContext): DeployPolicyInput {
  const f = ctx.facts;
  return {
    accountId: f.accountId,
    region: f.config.region,
    bucket: f.bucket,
    ...(f.preview ? {} : { distributionArn: requireOutput(ctx, "distribution", "arn") }),
    builderLogGroup: f.builderLogGroup,
    builderImage: builderImageName(f.env, f.config.siteName),
    builderRole: builderRoleName(f.env, f.config.siteName),
    ...(microvmBuilderWanted(f) ? {} : { localBuilder: true }),
    ...pdsSecret(f.env, f.config),
    ...(f.preview ? {} : { rules: rulesPolicyInput(ctx) }),
  };
}

/** The publishing secret, for production with a valid `pds` section (a broken one is skipped). */
function pdsSecret(env: string, config: SiteConfig): { pdsSecretName?: string } {
  if (env !== "production") return {};
  const pds = resolvePdsConfig(config.pds, config);
  return "config" in pds && pds.config ? { pdsSecretName: pds.config.secretName } : {};
}

/** The deploy role node. */
export const deployRoleNode: ResourceNode = iamRoleNode({
  id: "deployRole",
  dependsOn: [
    "oidcProvider",
    "bucket",
    "distribution",
    "rulesStore",
    "builderLogGroup",
    "builderRole",
  ],
  wanted: (facts) => facts.config.githubRepo !== undefined,
  roleName: (facts) => facts.deployRole,
  description: (ctx) => `deploy ${ctx.facts.bucket} from GitHub ${ctx.facts.config.githubRepo}`,
  trustPolicy: (ctx) =>
    trustPolicy(requireOutput(ctx, "oidcProvider", "arn"), ctx.facts.config.githubRepo!),
  // status may read the role after its provider is gone: compare only what is known.
  trustKnown: (ctx) =>
    ctx.facts.config.githubRepo !== undefined &&
    optionalOutput(ctx, "oidcProvider", "arn") !== undefined,
  trustDrift: (facts) => `trust policy is not scoped to repo:${facts.config.githubRepo}:*`,
  policyName: DEPLOY_POLICY_NAME,
  inlinePolicy: (ctx) => deployPolicy(policyInput(ctx)),
  inlinePolicyKnown: (ctx) =>
    ctx.facts.preview !== undefined || typeof ctx.outputs.distribution?.arn === "string",
});
