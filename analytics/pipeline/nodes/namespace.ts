/**
 * The table namespace (`analytics.namespace`) inside the table bucket (us-east-1).
 *
 * @module
 */
import {
  CreateNamespaceCommand,
  DeleteNamespaceCommand,
  GetNamespaceCommand,
} from "@aws-sdk/client-s3tables";
import { aws, awsErrorCode, awsMaybe, type NodeOutputs } from "@org/deploy/plugin";
import type { AnalyticsFacts, AnalyticsNode } from "../facts.ts";
import { ANALYTICS_REGION } from "../names.ts";

const label = (facts: AnalyticsFacts) =>
  `namespace ${facts.names.tableBucket}/${facts.names.namespace} (${ANALYTICS_REGION})`;
const at = (facts: AnalyticsFacts, action: string) => ({ resource: label(facts), action });
const outputs = (facts: AnalyticsFacts): NodeOutputs => ({ name: facts.names.namespace });

/** The namespace node. */
export const namespaceNode: AnalyticsNode = {
  id: "namespace",
  dependsOn: ["tableBucket"],
  wanted: () => true,
  label,
  async read(ctx) {
    const { names } = ctx.facts;
    const found = await awsMaybe(
      at(ctx.facts, "s3tables:GetNamespace"),
      () =>
        ctx.clients.s3tables.send(
          new GetNamespaceCommand({
            tableBucketARN: names.tableBucketArn,
            namespace: names.namespace,
          }),
        ),
    );
    return found ? { outputs: outputs(ctx.facts), drift: [] } : null;
  },
  async create(ctx) {
    const { names } = ctx.facts;
    await aws(at(ctx.facts, "s3tables:CreateNamespace"), async () => {
      try {
        await ctx.clients.s3tables.send(
          new CreateNamespaceCommand({
            tableBucketARN: names.tableBucketArn,
            namespace: [names.namespace],
          }),
        );
      } catch (err) {
        if (awsErrorCode(err) !== "ConflictException") throw err; // ours: adopt it
      }
    });
    return outputs(ctx.facts);
  },
  update: (ctx) => Promise.resolve(outputs(ctx.facts)),
  async delete(ctx) {
    const { names } = ctx.facts;
    await awsMaybe(
      at(ctx.facts, "s3tables:DeleteNamespace"),
      () =>
        ctx.clients.s3tables.send(
          new DeleteNamespaceCommand({
            tableBucketARN: names.tableBucketArn,
            namespace: names.namespace,
          }),
        ),
    );
  },
};
