/**
 * The MicroVM builder's role `<env>-<siteName>-builder`: assumed by the Lambda service
 * (`lambda.amazonaws.com`, the principal the MicroVMs documentation names for both the build
 * and the execution role) to build the builder image and to run the builder MicroVM. One role
 * serves both, because both phases touch the same few resources of this one site: the image
 * build reads the agent bundle (`builder/*`), the running agent reads the source (`build/*`),
 * writes the live site (`site/*`), the build records (`builds/*`) and the kept outputs
 * (`outputs/*`), and both log to the
 * builder log group.
 *
 * @module
 */
import { microvmBuilderWanted } from "../microvm_wanted.ts";
import { builderRoleName, logGroupArn } from "../../config/names.ts";
import type { PolicyDocument } from "../policy_document.ts";
import { servedPrefix, SITE_PREFIX } from "../../state/bucket_layout.ts";
import type { NodeContext, ResourceNode, SiteFacts } from "../resource.ts";
import { type RulesPolicyInput, rulesPolicyInput, rulesStatements } from "./rules_policy.ts";
import { BUILD_CACHE_PREFIX, OUTPUTS_PREFIX } from "../../state/bucket_layout.ts";
import { iamRoleNode, serviceTrustPolicy, SITE_OBJECT_ACTIONS } from "./iam_role.ts";

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
  return serviceTrustPolicy(MICROVMS_SERVICE_PRINCIPAL, accountId, [
    "sts:AssumeRole",
    "sts:TagSession",
  ]);
}

/** What the builder role's inline policy names. */
export interface BuilderPolicyInput {
  accountId: string;
  region: string;
  bucket: string;
  builderLogGroup: string;
  /** Where the builder publishes: `site/` (default), or `previews/` for the preview stack. */
  sitePrefix?: string;
  /** The site's rules, which a build puts live before its sync (none for the preview stack). */
  rules?: RulesPolicyInput;
  /** Config `build.secrets`' secret names, which a build reads (none: no secret at all). */
  buildSecrets?: readonly string[];
}

/**
 * The builder role's inline policy (pure): read `build/*` (sources) and `builder/*` (the agent
 * bundle), read and write `site/*` (the live site; `previews/*` for the preview stack),
 * `builds/*` (records and manifests), `cache/*` (the build cache) and, for the live site,
 * `outputs/*` (kept build outputs, copied there after the sync for `rollback`), read the
 * secrets `build.secrets` names, list
 * the bucket (the sync compares against the live listing), and write log streams of the
 * builder log group. Nothing else: no bucket administration, no other bucket, no other group.
 *
 * @param input account, region, bucket and log group
 * @returns the policy document
 */
export function builderPolicy(input: BuilderPolicyInput): PolicyDocument {
  const bucketArn = `arn:aws:s3:::${input.bucket}`;
  const sitePrefix = input.sitePrefix ?? SITE_PREFIX;
  const logGroup = logGroupArn(input.region, input.accountId, input.builderLogGroup);
  return {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "ListSiteBucket",
        Effect: "Allow",
        // The encryption tells the sync whether ETags are MD5s (not under KMS).
        Action: ["s3:ListBucket", "s3:GetEncryptionConfiguration"],
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
        Action: [...SITE_OBJECT_ACTIONS],
        Resource: [
          `${bucketArn}/${sitePrefix}*`,
          `${bucketArn}/builds/*`,
          // The live site's builds are kept for rollback; previews keep nothing.
          ...(sitePrefix === SITE_PREFIX ? [`${bucketArn}/${OUTPUTS_PREFIX}*`] : []),
        ],
      },
      {
        Sid: "BuildCache",
        Effect: "Allow",
        // Restore, store, refresh (a copy onto itself) and discard a corrupt archive.
        Action: ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
        Resource: `${bucketArn}/${BUILD_CACHE_PREFIX}*`,
      },
      ...((input.buildSecrets ?? []).length === 0 ? [] : [{
        Sid: "BuildSecrets",
        Effect: "Allow" as const,
        Action: "secretsmanager:GetSecretValue",
        // A secret's ARN ends in `-` and six random characters after its name.
        Resource: [...new Set(input.buildSecrets)].sort().map((name) =>
          `arn:aws:secretsmanager:${input.region}:${input.accountId}:secret:${name}-??????`
        ),
      }]),
      {
        Sid: "BuilderLogs",
        Effect: "Allow",
        Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
        Resource: [logGroup, `${logGroup}:*`],
      },
      ...(input.rules === undefined ? [] : rulesStatements(input.rules)),
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

function policyInput(ctx: NodeContext): BuilderPolicyInput {
  const facts = ctx.facts;
  return {
    accountId: facts.accountId,
    region: facts.config.region,
    bucket: facts.bucket,
    builderLogGroup: facts.builderLogGroup,
    sitePrefix: servedPrefix(facts.preview !== undefined),
    ...(facts.preview ? {} : { rules: rulesPolicyInput(ctx) }),
    ...(facts.config.build.secrets
      ? { buildSecrets: Object.values(facts.config.build.secrets) }
      : {}),
  };
}

/** The builder role node. */
export const builderRoleNode: ResourceNode = iamRoleNode({
  id: "builderRole",
  dependsOn: ["bucket", "builderLogGroup", "distribution", "rulesStore"],
  wanted: microvmBuilderWanted,
  roleName: builderRole,
  description: (ctx) => `MicroVM builder of ${ctx.facts.bucket}`,
  trustPolicy: (ctx) => builderTrustPolicy(ctx.facts.accountId),
  trustDrift: () => `trust policy is not ${MICROVMS_SERVICE_PRINCIPAL} for this account`,
  policyName: BUILDER_POLICY_NAME,
  inlinePolicy: (ctx) => builderPolicy(policyInput(ctx)),
  inlinePolicyKnown: (ctx) =>
    ctx.facts.preview !== undefined || typeof ctx.outputs.distribution?.arn === "string",
});
