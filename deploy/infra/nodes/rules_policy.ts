/**
 * What putting a site's redirect and header rules live needs from IAM (`routing/`), for every
 * role that deploys: the deploy role (the CLI in CI with `--builder local`) and the builder
 * role (a MicroVM build puts them live before its sync).
 *
 * @module
 */
import { siteHeadersFunctionName, siteRewriteFunctionName } from "../../config/names.ts";
import type { PolicyStatement } from "../policy_document.ts";
import type { NodeContext } from "../resource.ts";
import { optionalOutput, requireOutput } from "./outputs.ts";

/** The site a rules statement is scoped to. */
export interface RulesPolicyInput {
  /** AWS account id. */
  readonly accountId: string;
  /** Environment name. */
  readonly env: string;
  /** The `siteName` key. */
  readonly siteName: string;
  /** The distribution's ARN. */
  readonly distributionArn: string;
  /** The rules store's ARN, when bootstrap made one. */
  readonly storeArn?: string;
}

/**
 * The statements (pure): write and publish the site's two functions, set the distribution's
 * associations and wait for it to deploy them, keep its response headers policy (CloudFront scopes policy listing to `*`),
 * and read and write the rules store's keys.
 *
 * @param input account, site and resources
 * @returns the statements
 */
export function rulesStatements(input: RulesPolicyInput): PolicyStatement[] {
  const fn = (name: string) => `arn:aws:cloudfront::${input.accountId}:function/${name}`;
  return [
    {
      Sid: "PublishRules",
      Effect: "Allow",
      Action: [
        "cloudfront:DescribeFunction",
        "cloudfront:GetFunction",
        "cloudfront:CreateFunction",
        "cloudfront:UpdateFunction",
        "cloudfront:PublishFunction",
        "cloudfront:TagResource",
      ],
      Resource: [
        fn(siteRewriteFunctionName(input.env, input.siteName)),
        fn(siteHeadersFunctionName(input.env, input.siteName)),
      ],
    },
    {
      Sid: "AssociateRules",
      Effect: "Allow",
      // GetDistribution: the deploy waits for `Deployed` after changing the rules.
      Action: [
        "cloudfront:GetDistributionConfig",
        "cloudfront:UpdateDistribution",
        "cloudfront:GetDistribution",
      ],
      Resource: input.distributionArn,
    },
    {
      Sid: "HeadersPolicy",
      Effect: "Allow",
      Action: [
        "cloudfront:ListResponseHeadersPolicies",
        "cloudfront:CreateResponseHeadersPolicy",
        "cloudfront:GetResponseHeadersPolicyConfig",
        "cloudfront:UpdateResponseHeadersPolicy",
      ],
      Resource: "*",
    },
    ...(input.storeArn === undefined ? [] : [{
      Sid: "RulesStore",
      Effect: "Allow" as const,
      Action: [
        "cloudfront-keyvaluestore:DescribeKeyValueStore",
        "cloudfront-keyvaluestore:ListKeys",
        "cloudfront-keyvaluestore:UpdateKeys",
      ],
      Resource: input.storeArn,
    }]),
  ];
}

/**
 * The statements' input for a site environment, from its nodes' outputs.
 *
 * @param ctx the node context (the distribution is created, the store when bootstrap made it)
 * @returns the input
 */
export function rulesPolicyInput(ctx: NodeContext): RulesPolicyInput {
  const storeArn = optionalOutput(ctx, "rulesStore", "arn");
  return {
    accountId: ctx.facts.accountId,
    env: ctx.facts.env,
    siteName: ctx.facts.config.siteName,
    distributionArn: requireOutput(ctx, "distribution", "arn"),
    ...(storeArn ? { storeArn } : {}),
  };
}
