/**
 * The builder image `<env>-<siteName>-builder`: made by the first MicroVM build (and remade when
 * the agent bundle or `microvm.memory` changes, see `microvm/image.ts`), not by bootstrap. The
 * node is "observed": `status` reports it, `destroy` deletes it before the builder role and log
 * group it uses, `bootstrap` leaves it alone.
 *
 * @module
 */
import { microvmBuilderWanted } from "../microvm_wanted.ts";
import { DeleteMicrovmImageCommand, GetMicrovmImageCommand } from "@aws-sdk/client-lambda-microvms";
import { builderImageName } from "../../config/names.ts";
import { DeployError } from "../../errors.ts";
import { awsMaybe } from "../../aws/errors.ts";
import type { NodeContext, ResourceNode, SiteFacts } from "../resource.ts";

function name(facts: SiteFacts): string {
  return builderImageName(facts.env, facts.config.siteName);
}

function resource(ctx: NodeContext): string {
  return `builder image ${name(ctx.facts)}`;
}

/** The builder image node (observed: created by deploys, deleted by destroy). */
export const builderImageNode: ResourceNode = {
  id: "builderImage",
  dependsOn: ["builderBaseImage", "builderRole", "builderLogGroup", "bucket"],
  wanted: microvmBuilderWanted,
  observed: true,
  label: (facts) => `builder image ${name(facts)}`,
  async read(ctx) {
    const out = await awsMaybe(
      { resource: resource(ctx), action: "lambda:GetMicrovmImage" },
      () =>
        ctx.clients.microvms.send(new GetMicrovmImageCommand({ imageIdentifier: name(ctx.facts) })),
    );
    if (!out) return null;
    return {
      outputs: {
        name: name(ctx.facts),
        arn: out.imageArn ?? "",
        state: out.state ?? "",
        ...(out.latestActiveImageVersion ? { version: out.latestActiveImageVersion } : {}),
      },
      drift: [],
    };
  },
  create(ctx) {
    return Promise.reject(
      new DeployError("internal", `${resource(ctx)} is made by deploys, not by bootstrap`),
    );
  },
  update(_ctx, live) {
    return Promise.resolve(live.outputs);
  },
  async delete(ctx) {
    await awsMaybe(
      { resource: resource(ctx), action: "lambda:DeleteMicrovmImage" },
      () =>
        ctx.clients.microvms.send(
          new DeleteMicrovmImageCommand({ imageIdentifier: name(ctx.facts) }),
        ),
    );
  },
};
