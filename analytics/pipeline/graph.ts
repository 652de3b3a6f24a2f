/**
 * The analytics pipeline's resource graph: every node, in dependency order. All in us-east-1.
 *
 * @module
 */
import type { AnalyticsNode } from "./facts.ts";
import { catalogNode } from "./nodes/catalog.ts";
import { errorBucketNode } from "./nodes/error_bucket.ts";
import { logDeliveryNode } from "./nodes/log_delivery.ts";
import { logDestinationNode } from "./nodes/log_destination.ts";
import { streamLogGroupNode, transformLogGroupNode } from "./nodes/log_groups.ts";
import { namespaceNode } from "./nodes/namespace.ts";
import { streamRoleNode, transformRoleNode } from "./nodes/roles.ts";
import { saltSecretNode } from "./nodes/salt_secret.ts";
import { streamNode } from "./nodes/stream.ts";
import { tableNode } from "./nodes/table.ts";
import { tableBucketNode } from "./nodes/table_bucket.ts";
import { transformFunctionNode } from "./nodes/transform_function.ts";

/** Every node of an environment's analytics pipeline, dependencies first. */
export const ANALYTICS_GRAPH: readonly AnalyticsNode[] = [
  tableBucketNode,
  namespaceNode,
  tableNode,
  catalogNode,
  saltSecretNode,
  transformLogGroupNode,
  transformRoleNode,
  transformFunctionNode,
  errorBucketNode,
  streamLogGroupNode,
  streamRoleNode,
  streamNode,
  logDestinationNode,
  logDeliveryNode,
];
