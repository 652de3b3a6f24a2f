/**
 * What the first deploy with header rules creates around the distribution: the viewer-response
 * function `<env>-<siteName>-headers` (per-path headers, 404 rules) and the response headers
 * policy `<env>-<siteName>-headers` (site-wide headers). Both are "observed" nodes: the deploy
 * makes and updates them (`routing/publish_routing.ts`), `status` reports them, and `destroy`
 * deletes them after the distribution (CloudFront refuses while one still uses them).
 *
 * @module
 */
import {
  type CloudFrontClient,
  DeleteResponseHeadersPolicyCommand,
  GetResponseHeadersPolicyCommand,
  ListResponseHeadersPoliciesCommand,
} from "@aws-sdk/client-cloudfront";
import { aws, awsMaybe } from "../../aws/errors.ts";
import { siteHeadersFunctionName, siteHeadersPolicyName } from "../../config/names.ts";
import { DeployError } from "../../errors.ts";
import type { ResourceNode, SiteFacts } from "../resource.ts";
import { readFunctionStage, rewriteFunctionNode } from "./rewrite_function.ts";

const headersName = (facts: SiteFacts) => siteHeadersFunctionName(facts.env, facts.config.siteName);
const policyName = (facts: SiteFacts) => siteHeadersPolicyName(facts.env, facts.config.siteName);

const notBootstrapped = (what: string) => () =>
  Promise.reject(new DeployError("internal", `${what} is made by deploys, not by bootstrap`));

/** The viewer-response function node (observed: made by deploys, deleted by destroy). */
export const headersFunctionNode: ResourceNode = {
  id: "headersFunction",
  dependsOn: [],
  wanted: (facts) => facts.preview === undefined,
  observed: true,
  label: (facts) => `CloudFront function ${headersName(facts)}`,
  async read(ctx) {
    const name = headersName(ctx.facts);
    const development = await readFunctionStage(ctx.clients.cloudfront, name, "DEVELOPMENT");
    return development ? { outputs: { name, arn: development.arn }, drift: [] } : null;
  },
  create: notBootstrapped("the headers function"),
  update: (_ctx, live) => Promise.resolve(live.outputs),
  delete: (ctx, live) => rewriteFunctionNode.delete(ctx, live),
};

/** The response headers policy node (observed: made by deploys, deleted by destroy). */
export const headersPolicyNode: ResourceNode = {
  id: "headersPolicy",
  dependsOn: [],
  wanted: (facts) => facts.preview === undefined,
  observed: true,
  label: (facts) => `response headers policy ${policyName(facts)}`,
  async read(ctx) {
    const id = await findHeadersPolicy(ctx.clients.cloudfront, policyName(ctx.facts));
    return id ? { outputs: { id, name: policyName(ctx.facts) }, drift: [] } : null;
  },
  create: notBootstrapped("the headers policy"),
  update: (_ctx, live) => Promise.resolve(live.outputs),
  async delete(ctx, live) {
    const id = String(live.outputs.id);
    const cf = ctx.clients.cloudfront;
    const resource = `response headers policy ${id}`;
    const got = await awsMaybe(
      { resource, action: "cloudfront:GetResponseHeadersPolicy" },
      () => cf.send(new GetResponseHeadersPolicyCommand({ Id: id })),
      "NoSuchResponseHeadersPolicy",
    );
    if (!got) return;
    await awsMaybe(
      { resource, action: "cloudfront:DeleteResponseHeadersPolicy" },
      () => cf.send(new DeleteResponseHeadersPolicyCommand({ Id: id, IfMatch: got.ETag })),
      "NoSuchResponseHeadersPolicy",
    );
  },
};

/**
 * Finds the site's response headers policy by name (custom policies, every page).
 *
 * @param cf CloudFront client
 * @param name the policy name
 * @returns its id, or undefined when there is none
 */
export async function findHeadersPolicy(
  cf: CloudFrontClient,
  name: string,
): Promise<string | undefined> {
  return await aws(
    {
      resource: `response headers policy ${name}`,
      action: "cloudfront:ListResponseHeadersPolicies",
    },
    async () => {
      let marker: string | undefined;
      do {
        const page = await cf.send(
          new ListResponseHeadersPoliciesCommand({
            Type: "custom",
            ...(marker ? { Marker: marker } : {}),
          }),
        );
        const list = page.ResponseHeadersPolicyList;
        const hit = list?.Items?.find((i) =>
          i.ResponseHeadersPolicy?.ResponseHeadersPolicyConfig?.Name === name
        );
        if (hit?.ResponseHeadersPolicy?.Id) return hit.ResponseHeadersPolicy.Id;
        marker = list?.NextMarker;
      } while (marker);
      return undefined;
    },
  );
}
