/**
 * The Origin Access Control through which the distribution signs its requests to the bucket.
 * Named after the bucket, which is unique, so a crashed run's OAC is found by name.
 *
 * @module
 */
import {
  type CloudFrontClient,
  CreateOriginAccessControlCommand,
  DeleteOriginAccessControlCommand,
  GetOriginAccessControlCommand,
  type OriginAccessControlConfig,
  paginateListOriginAccessControls,
  UpdateOriginAccessControlCommand,
} from "@aws-sdk/client-cloudfront";
import { aws, awsErrorCode, awsMaybe } from "../../aws/errors.ts";
import type { NodeContext, ResourceNode } from "../resource.ts";

/**
 * The OAC's desired configuration (pure): S3 origin, SigV4, always signing.
 *
 * @param bucket the site bucket (the OAC's unique name)
 * @returns the configuration
 */
export function oacConfig(bucket: string): OriginAccessControlConfig {
  return {
    Name: bucket,
    Description: `deploy: CloudFront access to s3://${bucket}`,
    SigningProtocol: "sigv4",
    SigningBehavior: "always",
    OriginAccessControlOriginType: "s3",
  };
}

async function findByName(cf: CloudFrontClient, name: string): Promise<string | undefined> {
  return await aws({
    resource: `origin access control ${name}`,
    action: "cloudfront:ListOriginAccessControls",
  }, async () => {
    for await (const page of paginateListOriginAccessControls({ client: cf }, {})) {
      const hit = page.OriginAccessControlList?.Items?.find((o) => o.Name === name);
      if (hit?.Id) return hit.Id;
    }
    return undefined;
  });
}

async function get(ctx: NodeContext, id: string) {
  return await awsMaybe(
    { resource: `origin access control ${id}`, action: "cloudfront:GetOriginAccessControl" },
    () => ctx.clients.cloudfront.send(new GetOriginAccessControlCommand({ Id: id })),
    "NoSuchOriginAccessControl",
  );
}

/** The OAC node. */
export const oacNode: ResourceNode = {
  id: "oac",
  dependsOn: [],
  wanted: () => true,
  label: (facts) => `origin access control ${facts.bucket}`,
  async read(ctx) {
    const recorded = typeof ctx.recorded?.id === "string" ? ctx.recorded.id : undefined;
    let found = recorded ? await get(ctx, recorded) : undefined;
    if (!found) {
      const id = await findByName(ctx.clients.cloudfront, ctx.facts.bucket);
      found = id ? await get(ctx, id) : undefined;
    }
    const config = found?.OriginAccessControl?.OriginAccessControlConfig;
    const id = found?.OriginAccessControl?.Id;
    if (!config || !id) return null;
    const want = oacConfig(ctx.facts.bucket);
    const drift = (["SigningProtocol", "SigningBehavior", "OriginAccessControlOriginType"] as const)
      .filter((k) => config[k] !== want[k])
      .map((k) => `${k} ${config[k]}, want ${want[k]}`);
    return { outputs: { id, name: ctx.facts.bucket }, drift };
  },
  async create(ctx) {
    const config = oacConfig(ctx.facts.bucket);
    try {
      const out = await ctx.clients.cloudfront.send(
        new CreateOriginAccessControlCommand({ OriginAccessControlConfig: config }),
      );
      return { id: out.OriginAccessControl?.Id ?? "", name: ctx.facts.bucket };
    } catch (err) {
      if (awsErrorCode(err) === "OriginAccessControlAlreadyExists") {
        const id = await findByName(ctx.clients.cloudfront, ctx.facts.bucket);
        if (id) return { id, name: ctx.facts.bucket };
      }
      return await aws(
        {
          resource: `origin access control ${ctx.facts.bucket}`,
          action: "cloudfront:CreateOriginAccessControl",
        },
        () => Promise.reject(err),
      );
    }
  },
  async update(ctx, live) {
    const id = String(live.outputs.id);
    const current = await get(ctx, id);
    await aws({
      resource: `origin access control ${id}`,
      action: "cloudfront:UpdateOriginAccessControl",
    }, () =>
      ctx.clients.cloudfront.send(
        new UpdateOriginAccessControlCommand({
          Id: id,
          IfMatch: current?.ETag,
          OriginAccessControlConfig: oacConfig(ctx.facts.bucket),
        }),
      ));
    return live.outputs;
  },
  async delete(ctx, live) {
    const id = String(live.outputs.id);
    const current = await get(ctx, id);
    if (!current) return;
    await aws(
      { resource: `origin access control ${id}`, action: "cloudfront:DeleteOriginAccessControl" },
      () =>
        ctx.clients.cloudfront.send(
          new DeleteOriginAccessControlCommand({ Id: id, IfMatch: current.ETag }),
        ),
    );
  },
};
