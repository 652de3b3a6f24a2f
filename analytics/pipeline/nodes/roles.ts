/**
 * The pipeline's two IAM roles (IAM is global; the roles are used in us-east-1): the
 * transform Lambda's and the Firehose stream's, each with one least-privilege inline policy.
 *
 * @module
 */
import { iamRoleNode, requireOutput, serviceTrustPolicy } from "@org/deploy/plugin";
import type { AnalyticsClients, AnalyticsFacts, AnalyticsNode, AnalyticsNodeId } from "../facts.ts";
import { ANALYTICS_REGION } from "../names.ts";
import { streamPolicy, transformPolicy } from "../policies.ts";

/** The command that creates the pipeline, named when a dependency is missing. */
export const ANALYTICS_BOOTSTRAP = "deploy analytics bootstrap";

/** The transform role node. */
export const transformRoleNode: AnalyticsNode = iamRoleNode<
  AnalyticsFacts,
  AnalyticsClients,
  AnalyticsNodeId
>({
  id: "transformRole",
  dependsOn: ["saltSecret", "transformLogGroup"],
  roleName: (facts) => facts.names.transformRole,
  labelSuffix: ` (used in ${ANALYTICS_REGION})`,
  description: (ctx) => `Analytics transform of ${ctx.facts.env} ${ctx.facts.siteName}`,
  trustPolicy: (ctx) => serviceTrustPolicy("lambda.amazonaws.com", ctx.facts.accountId),
  trustDrift: () => "trust policy is not lambda.amazonaws.com for this account",
  policyName: "transform",
  inlinePolicy: (ctx) =>
    transformPolicy(
      ctx.facts.names,
      ctx.facts.accountId,
      requireOutput(ctx, "saltSecret", "arn", ANALYTICS_BOOTSTRAP),
    ),
  inlinePolicyKnown: (ctx) => typeof ctx.outputs.saltSecret?.arn === "string",
});

/** The stream role node. */
export const streamRoleNode: AnalyticsNode = iamRoleNode<
  AnalyticsFacts,
  AnalyticsClients,
  AnalyticsNodeId
>({
  id: "streamRole",
  dependsOn: ["transform", "errorBucket", "streamLogGroup", "table"],
  roleName: (facts) => facts.names.streamRole,
  labelSuffix: ` (used in ${ANALYTICS_REGION})`,
  description: (ctx) => `Analytics Firehose stream of ${ctx.facts.env} ${ctx.facts.siteName}`,
  trustPolicy: (ctx) => serviceTrustPolicy("firehose.amazonaws.com", ctx.facts.accountId),
  trustDrift: () => "trust policy is not firehose.amazonaws.com for this account",
  policyName: "stream",
  inlinePolicy: (ctx) =>
    streamPolicy(
      ctx.facts.names,
      ctx.facts.accountId,
      requireOutput(ctx, "transform", "arn", ANALYTICS_BOOTSTRAP),
    ),
  inlinePolicyKnown: (ctx) => typeof ctx.outputs.transform?.arn === "string",
});
