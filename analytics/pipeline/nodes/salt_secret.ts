/**
 * The salt secret (`analytics.saltSecretName`, us-east-1): 32 random bytes, created once and
 * never rewritten (a new value would change every visitor key of the current day), kept on
 * destroy (so a re-created pipeline keys visitors the same way).
 *
 * @module
 */
import {
  CreateSecretCommand,
  DescribeSecretCommand,
  TagResourceCommand,
} from "@aws-sdk/client-secrets-manager";
import {
  aws,
  awsErrorCode,
  awsMaybe,
  type NodeOutputs,
  tagDrift,
  tagList,
  tagMap,
} from "@org/deploy/plugin";
import { SALT_SECRET_BYTES } from "../../transform/visitor_key.ts";
import type { AnalyticsContext, AnalyticsFacts, AnalyticsNode } from "../facts.ts";
import { ANALYTICS_REGION } from "../names.ts";

const label = (facts: AnalyticsFacts) => `secret ${facts.names.saltSecret} (${ANALYTICS_REGION})`;
const at = (facts: AnalyticsFacts, action: string) => ({ resource: label(facts), action });

async function describe(ctx: AnalyticsContext) {
  return await awsMaybe(
    at(ctx.facts, "secretsmanager:DescribeSecret"),
    () =>
      ctx.clients.secrets.send(new DescribeSecretCommand({ SecretId: ctx.facts.names.saltSecret })),
  );
}

const outputs = (facts: AnalyticsFacts, arn: string): NodeOutputs => ({
  name: facts.names.saltSecret,
  arn,
});

async function putTags(ctx: AnalyticsContext, arn: string): Promise<void> {
  await aws(
    at(ctx.facts, "secretsmanager:TagResource"),
    () =>
      ctx.clients.secrets.send(
        new TagResourceCommand({ SecretId: arn, Tags: tagList(ctx.facts.tags) }),
      ),
  );
}

/** The salt secret node. */
export const saltSecretNode: AnalyticsNode = {
  id: "saltSecret",
  dependsOn: [],
  wanted: () => true,
  label,
  keep: "it salts the visitor keys; a new salt would make today's visitors count twice",
  async read(ctx) {
    const found = await describe(ctx);
    if (!found?.ARN) return null;
    return {
      outputs: outputs(ctx.facts, found.ARN),
      drift: tagDrift(tagMap(found.Tags), ctx.facts.tags),
    };
  },
  async create(ctx) {
    let arn: string | undefined;
    await aws(at(ctx.facts, "secretsmanager:CreateSecret"), async () => {
      try {
        const out = await ctx.clients.secrets.send(
          new CreateSecretCommand({
            Name: ctx.facts.names.saltSecret,
            Description: `Visitor-key salt of the ${ctx.facts.env} analytics pipeline`,
            SecretBinary: crypto.getRandomValues(new Uint8Array(SALT_SECRET_BYTES)),
            Tags: tagList(ctx.facts.tags),
          }),
        );
        arn = out.ARN;
      } catch (err) {
        // Never rewritten: an existing secret (a crashed run's) is adopted as it is.
        if (awsErrorCode(err) !== "ResourceExistsException") throw err;
        arn = (await describe(ctx))?.ARN;
      }
    });
    return outputs(ctx.facts, arn ?? "");
  },
  async update(ctx, live) {
    await putTags(ctx, String(live.outputs.arn));
    return live.outputs;
  },
  delete: () => Promise.resolve(),
};
