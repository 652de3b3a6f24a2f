/**
 * The CloudFront KeyValueStore `<env>-<siteName>-rules`: where a deploy puts the redirect
 * rules that do not fit the viewer-request function's 10 KB of code (`routing/`). Bootstrap
 * creates it (tagged) and associates it with the rewrite function, so a deploy that outgrows
 * the inline table only fills it; `destroy` removes it after the function (CloudFront refuses
 * to delete a store a function still uses). The preview stack has none: previews do not run
 * the site's rules.
 *
 * @module
 */
import {
  type CloudFrontClient,
  CreateKeyValueStoreCommand,
  DeleteKeyValueStoreCommand,
  DescribeKeyValueStoreCommand,
  type KeyValueStore,
} from "@aws-sdk/client-cloudfront";
import { aws, awsErrorCode, awsMaybe } from "../../aws/errors.ts";
import { tagList } from "../../aws/tags.ts";
import { siteRulesStoreName } from "../../config/names.ts";
import { bootstrapCommandFor } from "../../config/env_name.ts";
import { DeployError } from "../../errors.ts";
import type { NodeOutputs } from "../../state/env_state.ts";
import type { NodeContext, ResourceNode, SiteFacts } from "../resource.ts";

/** CloudFront's "no such store" error code. */
const NO_SUCH_STORE = "EntityNotFound";

/** How long bootstrap waits for a new store to be `READY` (it takes seconds). */
const READY_TIMEOUT_MS = 5 * 60_000;
const READY_POLL_MS = 2_000;

/**
 * The store's name for a site (pure).
 *
 * @param facts the site
 * @returns `<env>-<siteName>-rules`
 */
export function rulesStoreName(facts: SiteFacts): string {
  return siteRulesStoreName(facts.env, facts.config.siteName);
}

async function describe(cf: CloudFrontClient, name: string) {
  return await awsMaybe(
    { resource: `key value store ${name}`, action: "cloudfront:DescribeKeyValueStore" },
    () => cf.send(new DescribeKeyValueStoreCommand({ Name: name })),
    NO_SUCH_STORE,
  );
}

function outputsOf(store: KeyValueStore): NodeOutputs {
  return {
    name: store.Name ?? "",
    id: store.Id ?? "",
    arn: store.ARN ?? "",
    status: store.Status ?? "",
  };
}

/** Waits until CloudFront has provisioned the store (a function may only use a ready one). */
async function waitReady(ctx: NodeContext, name: string): Promise<KeyValueStore> {
  const deadline = ctx.clock.now() + READY_TIMEOUT_MS;
  for (;;) {
    const store = (await describe(ctx.clients.cloudfront, name))?.KeyValueStore;
    if (store && store.Status !== "PROVISIONING") return store;
    if (ctx.clock.now() >= deadline) {
      throw new DeployError("wait_timeout", `key value store ${name} is still provisioning`, {
        hint: `run \`${bootstrapCommandFor(ctx.facts.env)}\` again in a few minutes`,
      });
    }
    await ctx.sleep(READY_POLL_MS);
  }
}

/** The rules store node. */
export const rulesStoreNode: ResourceNode = {
  id: "rulesStore",
  dependsOn: [],
  wanted: (facts) => facts.preview === undefined,
  label: (facts) => `key value store ${rulesStoreName(facts)}`,
  async read(ctx) {
    const store = (await describe(ctx.clients.cloudfront, rulesStoreName(ctx.facts)))
      ?.KeyValueStore;
    if (!store) return null;
    return {
      outputs: outputsOf(store),
      drift: store.Status === "READY" || store.Status === "PROVISIONING"
        ? []
        : [`status ${store.Status}, want READY`],
    };
  },
  async create(ctx) {
    const name = rulesStoreName(ctx.facts);
    try {
      await ctx.clients.cloudfront.send(
        new CreateKeyValueStoreCommand({
          Name: name,
          Comment: `deploy ${ctx.facts.bucket}: redirect rules past the function size limit`,
          Tags: { Items: tagList(ctx.facts.tags) },
        }),
      );
    } catch (err) {
      // A crashed run created it: adopt it.
      if (awsErrorCode(err) !== "EntityAlreadyExists") {
        await aws(
          { resource: `key value store ${name}`, action: "cloudfront:CreateKeyValueStore" },
          () => Promise.reject(err),
        );
      }
    }
    return outputsOf(await waitReady(ctx, name));
  },
  async update(ctx) {
    return outputsOf(await waitReady(ctx, rulesStoreName(ctx.facts)));
  },
  async delete(ctx, live) {
    const name = String(live.outputs.name);
    const cf = ctx.clients.cloudfront;
    const described = await describe(cf, name);
    if (!described) return;
    await awsMaybe(
      { resource: `key value store ${name}`, action: "cloudfront:DeleteKeyValueStore" },
      () => cf.send(new DeleteKeyValueStoreCommand({ Name: name, IfMatch: described.ETag })),
      NO_SUCH_STORE,
    );
  },
};
