/**
 * The managed MicroVM base image the builder image is built on: a read-only "data" node. It
 * creates nothing; bootstrap resolves the image with `ListManagedMicrovmImages` and records its
 * ARN, which the builder passes as `baseImageArn`. AWS-managed images are operating-system
 * images (`arn:aws:lambda:<region>:aws:microvm-image:al2023-1`); the builder image's own build
 * puts Deno on top, so the default is the newest Amazon Linux 2023 image. The operator can
 * name another one (by name or ARN) with `DEPLOY_BUILDER_BASE_IMAGE`.
 *
 * @module
 */
import { microvmBuilderWanted } from "../microvm_wanted.ts";
import {
  type LambdaMicrovmsClient,
  paginateListManagedMicrovmImages,
} from "@aws-sdk/client-lambda-microvms";
import { DeployError } from "../../errors.ts";
import { aws } from "../../aws/errors.ts";
import type { ResourceNode, SiteFacts } from "../resource.ts";
import { allItems } from "../../aws/pages.ts";

/** The environment variable naming a managed base image (name or ARN) instead of the default. */
export const BUILDER_BASE_IMAGE_ENV = "DEPLOY_BUILDER_BASE_IMAGE";

/** Default choice: managed image names of this family (`al2023`, `al2023-1`, `al2023-2`, …). */
export const DEFAULT_BASE_IMAGE_FAMILY = "al2023";

/** A managed image as listed. */
export interface ManagedImage {
  /** The image ARN. */
  readonly imageArn: string;
  /** Creation time (tie-break: newest wins). */
  readonly createdAt?: Date | undefined;
}

/**
 * A managed image's name: the ARN's last segment after `microvm-image:` (pure).
 *
 * @param arn the image ARN
 * @returns the name (`al2023-1`)
 */
export function managedImageName(arn: string): string {
  const i = arn.lastIndexOf("microvm-image:");
  if (i >= 0) return arn.slice(i + "microvm-image:".length);
  return arn.slice(Math.max(arn.lastIndexOf(":"), arn.lastIndexOf("/")) + 1);
}

function familyVersion(name: string, family: string): number | undefined {
  if (name === family) return 0;
  const m = new RegExp(`^${family}-(\\d+)$`).exec(name);
  return m ? Number(m[1]) : undefined;
}

/**
 * Picks the base image (pure): with `override`, the listed image whose ARN or name equals it;
 * otherwise the `al2023` family member with the highest version suffix (newest on a tie).
 *
 * @param images the managed images listed
 * @param override a name or ARN from {@linkcode BUILDER_BASE_IMAGE_ENV}
 * @returns the chosen image, or undefined when none fits
 *
 * @example
 * ```ts
 * chooseBaseImage([{ imageArn: "arn:aws:lambda:eu-west-1:aws:microvm-image:al2023-1" }]);
 * // { imageArn: "arn:aws:lambda:eu-west-1:aws:microvm-image:al2023-1" }
 * ```
 */
export function chooseBaseImage(
  images: readonly ManagedImage[],
  override?: string,
): ManagedImage | undefined {
  if (override !== undefined && override !== "") {
    return images.find((i) => i.imageArn === override || managedImageName(i.imageArn) === override);
  }
  let best: { image: ManagedImage; version: number } | undefined;
  for (const image of images) {
    const version = familyVersion(managedImageName(image.imageArn), DEFAULT_BASE_IMAGE_FAMILY);
    if (version === undefined) continue;
    const newer = best === undefined || version > best.version ||
      (version === best.version &&
        (image.createdAt?.getTime() ?? 0) > (best.image.createdAt?.getTime() ?? 0));
    if (newer) best = { image, version };
  }
  return best?.image;
}

/**
 * Lists every managed MicroVM image (all pages).
 *
 * @param microvms MicroVMs client in the site's region
 * @returns the images
 * @throws {DeployError} an AWS failure
 */
export async function listManagedImages(microvms: LambdaMicrovmsClient): Promise<ManagedImage[]> {
  try {
    return await aws(
      {
        resource: "the managed MicroVM images",
        action: "lambda:ListManagedMicrovmImages",
        listing: true,
      },
      async () => {
        const pages = paginateListManagedMicrovmImages({ client: microvms, pageSize: 50 }, {});
        return (await allItems(pages, (page) => page.items)).flatMap((item) =>
          item.imageArn ? [{ imageArn: item.imageArn, createdAt: item.createdAt }] : []
        );
      },
    );
  } catch (err) {
    if (err instanceof DeployError && err.code === "aws_operation_unsupported") {
      // Only the MicroVM builder needs the listing: a site can build locally without it.
      throw new DeployError(err.code, err.message, {
        hint:
          `${err.hint}; to build without Lambda MicroVMs, set "build": { "builder": "local" } ` +
          "in the configuration (docs/deploy-config.md)",
        cause: err,
      });
    }
    throw err;
  }
}

function wantedLabel(facts: SiteFacts): string {
  return facts.builderBaseImage ? facts.builderBaseImage : `${DEFAULT_BASE_IMAGE_FAMILY} (newest)`;
}

/** The managed base image node (read-only). */
export const builderBaseImageNode: ResourceNode = {
  id: "builderBaseImage",
  dependsOn: [],
  wanted: microvmBuilderWanted,
  readOnly: true,
  label: (facts) => `managed base image ${wantedLabel(facts)}`,
  async read(ctx) {
    const chosen = chooseBaseImage(
      await listManagedImages(ctx.clients.microvms),
      ctx.facts.builderBaseImage,
    );
    if (!chosen) return null;
    return {
      outputs: { arn: chosen.imageArn, name: managedImageName(chosen.imageArn) },
      drift: [],
    };
  },
  create(ctx) {
    // A data node: nothing to create. Missing means the region offers no fitting image.
    const f = ctx.facts;
    return Promise.reject(
      new DeployError(
        "builder_not_configured",
        `no managed MicroVM base image ${wantedLabel(f)} in ${f.config.region}`,
        {
          hint: `check that Lambda MicroVMs is available in ${f.config.region}, or set ` +
            `${BUILDER_BASE_IMAGE_ENV} to a name or ARN from ` +
            "`aws lambda-microvms list-managed-microvm-images`",
        },
      ),
    );
  },
  update(_ctx, live) {
    return Promise.resolve(live.outputs);
  },
  delete() {
    return Promise.resolve();
  },
  keep: "an AWS-managed image; nothing to delete",
};
