/**
 * @module
 * `@org/deploy/plugin`: what a deploy plugin builds on. A plugin is its own package that
 * imports only this surface of the core CLI: the error model, the configuration schema
 * language (so its section is checked and reported like every other), the AWS failure
 * mapping, and the resource-node contract of the infrastructure engine. `docs/plugins.md`
 * describes the contract.
 *
 * @example
 * ```ts
 * import { checkObject, DeployError, type ObjectField } from "@org/deploy/plugin";
 * ```
 */
export { DeployError, type DeployErrorCode, notImplemented } from "../errors.ts";
export * from "./section.ts";
export { type AwsClientClass, endpointFor, type Environ } from "../aws/client_factory.ts";
export { CDN_REGION, cdnLogDeliveryName, logGroupArn } from "../config/names.ts";
export { deployTempRoot } from "../pipeline/deploy_input.ts";
export {
  aws,
  type AwsCallContext,
  awsErrorCode,
  awsFailure,
  awsMaybe,
  isNotFound,
} from "../aws/errors.ts";
export { isRetryable, type RetryOptions, withRetry } from "../aws/retry.ts";
export { tagDrift, tagList, tagMap } from "../aws/tags.ts";
export { canonicalJson, type PolicyDocument, samePolicy } from "../infra/policy_document.ts";
export type { JsonValue, NodeOutputs } from "../state/env_state.ts";
export type { LiveResource, NodeContext, ResourceNode } from "../infra/resource.ts";
export { optionalOutput, requireOutput } from "../infra/nodes/outputs.ts";
export {
  iamRoleNode,
  type IamRoleSpec,
  serviceTrustPolicy,
  type TaggedFacts,
} from "../infra/nodes/iam_role.ts";
export { logGroupNode, type LogGroupSpec, logRetentionDays } from "../infra/nodes/log_group.ts";
export { privateBucketNode, type PrivateBucketSpec } from "../infra/nodes/bucket.ts";
export { CDN_LOG_FORMAT } from "../infra/nodes/cdn_log_delivery.ts";
export {
  createDelivery,
  type DeliveryRequest,
  findDelivery,
  listDeliveries,
} from "../aws/log_deliveries.ts";
export {
  type GraphRun,
  inspect,
  type NodeAction,
  type NodeReport,
  type NodeResult,
  type NodeStatus,
  reconcile,
  type ReconcileResult,
  type RecordedState,
  teardown,
  type TeardownResult,
} from "../infra/reconcile.ts";
export type { NodeRecord } from "../state/env_state.ts";
export { dependencyOrder } from "../infra/graph.ts";
export * from "../state/scoped_state.ts";
export { scopedStateKey } from "../state/bucket_layout.ts";
export * from "./contract.ts";
export type { CommandContext, FlagSpec } from "../command.ts";
export { reconcileLine, statusLine, teardownLine } from "../infra/node_lines.ts";
