/**
 * The resource graph of one site environment: every node, and the order they are created in
 * (dependencies first) and torn down in (the reverse).
 *
 * @module
 */
import { bucketNode } from "./nodes/bucket.ts";
import { bucketPolicyNode } from "./nodes/bucket_policy.ts";
import { builderBaseImageNode } from "./nodes/builder_base_image.ts";
import { builderImageNode } from "./nodes/builder_image.ts";
import { builderRoleNode } from "./nodes/builder_role.ts";
import { cdnLogDeliveryNode } from "./nodes/cdn_log_delivery.ts";
import { certificateNode } from "./nodes/certificate.ts";
import { deployRoleNode } from "./nodes/deploy_role.ts";
import { distributionNode } from "./nodes/distribution.ts";
import { builderLogGroupNode, cdnLogGroupNode } from "./nodes/log_group.ts";
import { oacNode } from "./nodes/oac.ts";
import { oidcProviderNode } from "./nodes/oidc_provider.ts";
import { rewriteFunctionNode } from "./nodes/rewrite_function.ts";
import { rulesStoreNode } from "./nodes/rules_store.ts";
import { headersFunctionNode, headersPolicyNode } from "./nodes/rules_response.ts";
import type { ResourceNode } from "./resource.ts";
import { certificateValidationNode } from "./nodes/certificate_validation.ts";
import { wildcardRecordsNode } from "./nodes/wildcard_records.ts";

/**
 * Every node of a site environment. The two DNS nodes are wanted only by the preview stack
 * with a Route 53 zone (`facts.preview.zone`).
 */
export const SITE_GRAPH: readonly ResourceNode[] = [
  bucketNode,
  builderLogGroupNode,
  cdnLogGroupNode,
  oacNode,
  rulesStoreNode,
  rewriteFunctionNode,
  headersFunctionNode,
  headersPolicyNode,
  certificateNode,
  certificateValidationNode,
  distributionNode,
  wildcardRecordsNode,
  cdnLogDeliveryNode,
  bucketPolicyNode,
  builderBaseImageNode,
  builderRoleNode,
  builderImageNode,
  oidcProviderNode,
  deployRoleNode,
];

/**
 * Orders nodes so every node comes after the nodes it depends on (pure; stable: ties keep
 * the given order).
 *
 * @param nodes the nodes
 * @returns the nodes in dependency order
 * @throws {Error} on a dependency cycle (a programming error)
 */
export function dependencyOrder<
  N extends Pick<ResourceNode<unknown, unknown, string>, "id" | "dependsOn">,
>(
  nodes: readonly N[],
): N[] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const order: N[] = [];
  const visit = (node: N) => {
    if (done.has(node.id)) return;
    if (visiting.has(node.id)) throw new Error(`dependency cycle through ${node.id}`);
    visiting.add(node.id);
    for (const dep of node.dependsOn) {
      const d = byId.get(dep);
      if (d) visit(d);
    }
    visiting.delete(node.id);
    done.add(node.id);
    order.push(node);
  };
  for (const n of nodes) visit(n);
  return order;
}
