/**
 * The builder image: created or updated only when the agent bundle or `microvm.memory`
 * changed. The content hash of the last image built is kept in the site bucket at
 * `builder/image.json`, beside the bundle it was built from.
 *
 * @module
 */
import { createHash } from "node:crypto";
import {
  CreateMicrovmImageCommand,
  type CreateMicrovmImageRequest,
  GetMicrovmImageCommand,
  type LambdaMicrovmsClient,
  UpdateMicrovmImageCommand,
} from "@aws-sdk/client-lambda-microvms";
import type { Clock } from "@org/shared";
import type { AgentBundle } from "./bundle.ts";
import { AGENT_HOOK_PORT } from "./agent/hooks.ts";
import { getText, putBytes, putJson, type S3Location } from "../../aws/s3_objects.ts";
import { DeployError } from "../../errors.ts";
import { aws, awsFailure } from "../../aws/errors.ts";

/** Key of the image state object. */
export const IMAGE_STATE_KEY = "builder/image.json";

/** What the environment must provide for the builder image (from the environment state). */
export interface BuilderImageSettings {
  /** ARN of the managed base image the builder image starts from (the bundle's Dockerfile adds Deno). */
  readonly baseImageArn: string;
  /** Role the service assumes to build the image (reads the bundle from the bucket). */
  readonly buildRoleArn: string;
  /** Role the running VM assumes (S3 read/write on the bucket). Optional. */
  readonly executionRoleArn?: string;
}

/** `builder/image.json`. */
export interface ImageState {
  /** {@linkcode imageHash} of the image built. */
  readonly hash: string;
  /** The image ARN. */
  readonly imageArn: string;
  /** The version that built from it. */
  readonly imageVersion: string;
  /** Key of the bundle zip the image was built from. */
  readonly bundleKey: string;
  /** `microvm.memory` it was built with. */
  readonly memory: number;
}

/** The image to launch. */
export interface ReadyImage {
  /** The image ARN. */
  readonly imageArn: string;
  /** The active version. */
  readonly imageVersion: string;
  /** Whether this call created or updated it. */
  readonly rebuilt: boolean;
}

/** Inputs of {@linkcode ensureBuilderImage}. */
export interface EnsureImageOptions {
  /** MicroVMs client. */
  readonly microvms: LambdaMicrovmsClient;
  /** The site bucket (image state and bundle). */
  readonly store: S3Location;
  /** Image name, `<env>-<siteName>-builder`. */
  readonly name: string;
  /** `microvm.memory` in GB. */
  readonly memoryGb: number;
  /** The builder log group (image build and VM logs). */
  readonly logGroup: string;
  /** Base image and roles. */
  readonly settings: BuilderImageSettings;
  /** The agent bundle. */
  readonly bundle: AgentBundle;
  /** Resource tags. */
  readonly tags: Readonly<Record<string, string>>;
  /** Time source. */
  readonly clock: Clock;
  /** Waits between `GetMicrovmImage` polls. */
  readonly sleep: (ms: number) => Promise<void>;
  /** Poll interval. Default 5000 ms. */
  readonly pollMs?: number;
  /** Longest wait for an image build. Default 30 minutes. */
  readonly timeoutMs?: number;
  /** Progress lines (e.g. "building the builder image"). */
  readonly onStatus?: (text: string) => void;
}

/**
 * The image's content hash: the agent bundle's hash and the memory size. Anything else about
 * the image (roles, base image) is fixed by bootstrap.
 *
 * @param bundleHash `AgentBundle.hash`
 * @param memoryGb `microvm.memory`
 * @returns hex SHA-256
 */
export function imageHash(bundleHash: string, memoryGb: number): string {
  return createHash("sha256").update(`${bundleHash}\nmemory=${memoryGb}`).digest("hex");
}

/**
 * The create/update request body for the image.
 *
 * @param o the options
 * @param bundleKey where the bundle zip is in the bucket
 * @param hash the image hash (description and idempotency)
 * @returns the request without `name`
 */
export function imageDefinition(
  o: Pick<EnsureImageOptions, "settings" | "memoryGb" | "logGroup" | "bundle" | "store">,
  bundleKey: string,
  hash: string,
): Omit<CreateMicrovmImageRequest, "name" | "tags" | "clientToken"> {
  return {
    baseImageArn: o.settings.baseImageArn,
    buildRoleArn: o.settings.buildRoleArn,
    description: `deploy build agent ${hash.slice(0, 12)}`,
    codeArtifact: { uri: `s3://${o.store.bucket}/${bundleKey}` },
    logging: { cloudWatch: { logGroup: o.logGroup } },
    resources: [{ minimumMemoryInMiB: Math.round(o.memoryGb * 1024) }],
    hooks: {
      port: AGENT_HOOK_PORT,
      microvmHooks: { run: "ENABLED", runTimeoutInSeconds: 60 },
    },
    environmentVariables: { DEPLOY_AGENT_ENTRY: o.bundle.entry },
  };
}

/**
 * Makes sure the builder image matches the current agent bundle and memory size: reuses it
 * when `builder/image.json` records the same hash and the image is active; otherwise uploads
 * the bundle, creates or updates the image, waits with `GetMicrovmImage` until it is ready, and
 * records the new hash.
 *
 * @param o clients, names, settings, bundle, clock
 * @returns the image to launch
 * @throws DeployError `builder_image_failed` when the image build fails or never finishes
 */
export async function ensureBuilderImage(o: EnsureImageOptions): Promise<ReadyImage> {
  const hash = imageHash(o.bundle.hash, o.memoryGb);
  const stored = parseImageState(await getText(o.store, IMAGE_STATE_KEY));
  let current = await getImage(o.microvms, o.name);
  if (current && (current.state === "CREATING" || current.state === "UPDATING")) {
    current = await waitReady(o);
  }
  if (
    current && stored?.hash === hash && current.latestActiveImageVersion !== undefined &&
    current.imageArn !== undefined
  ) {
    return {
      imageArn: current.imageArn,
      imageVersion: current.latestActiveImageVersion,
      rebuilt: false,
    };
  }
  const bundleKey = `builder/agent-${o.bundle.hash.slice(0, 16)}.zip`;
  await putBytes(o.store, bundleKey, o.bundle.zip, "application/zip");
  const definition = imageDefinition(o, bundleKey, hash);
  o.onStatus?.(current ? "updating the builder image" : "creating the builder image");
  const image = `builder image ${o.name}`;
  if (current) {
    await aws({ resource: image, action: "lambda:UpdateMicrovmImage" }, () =>
      o.microvms.send(
        new UpdateMicrovmImageCommand({ imageIdentifier: o.name, ...definition }),
      ));
  } else {
    await aws({ resource: image, action: "lambda:CreateMicrovmImage" }, () =>
      o.microvms.send(
        new CreateMicrovmImageCommand({
          name: o.name,
          ...definition,
          tags: { ...o.tags },
          clientToken: hash.slice(0, 64),
        }),
      ));
  }
  const ready = await waitReady(o);
  if (ready.imageArn === undefined || ready.latestActiveImageVersion === undefined) {
    throw imageFailed(o.name, "it has no active version");
  }
  const state: ImageState = {
    hash,
    imageArn: ready.imageArn,
    imageVersion: ready.latestActiveImageVersion,
    bundleKey,
    memory: o.memoryGb,
  };
  await putJson(o.store, IMAGE_STATE_KEY, state);
  return { imageArn: state.imageArn, imageVersion: state.imageVersion, rebuilt: true };
}

/**
 * Reads `builder/image.json`.
 *
 * @param text the object body, or undefined when absent
 * @returns the state, or undefined when absent or malformed (the image is then rebuilt)
 */
export function parseImageState(text: string | undefined): ImageState | undefined {
  if (text === undefined) return undefined;
  try {
    const s = JSON.parse(text) as Partial<ImageState>;
    return typeof s.hash === "string" && typeof s.imageArn === "string"
      ? s as ImageState
      : undefined;
  } catch {
    return undefined;
  }
}

interface ImageView {
  imageArn: string | undefined;
  state: string | undefined;
  latestActiveImageVersion: string | undefined;
  imageVersion?: string | undefined;
}

async function getImage(
  microvms: LambdaMicrovmsClient,
  name: string,
): Promise<ImageView | undefined> {
  try {
    const out = await microvms.send(new GetMicrovmImageCommand({ imageIdentifier: name }));
    return {
      imageArn: out.imageArn,
      state: out.state,
      latestActiveImageVersion: out.latestActiveImageVersion,
    };
  } catch (err) {
    if ((err as { name?: string }).name === "ResourceNotFoundException") return undefined;
    throw awsFailure(err, { resource: `builder image ${name}`, action: "lambda:GetMicrovmImage" });
  }
}

async function waitReady(o: EnsureImageOptions): Promise<ImageView> {
  const start = o.clock.now();
  const timeout = o.timeoutMs ?? 30 * 60_000;
  for (;;) {
    const img = await getImage(o.microvms, o.name);
    if (!img) throw imageFailed(o.name, "it disappeared while building");
    if (img.state === "CREATED" || img.state === "UPDATED") return img;
    if (img.state === "CREATE_FAILED" || img.state === "UPDATE_FAILED") {
      throw imageFailed(o.name, `its build ended in ${img.state}`);
    }
    if (o.clock.now() - start >= timeout) {
      throw imageFailed(o.name, `it was still ${img.state} after ${Math.round(timeout / 1000)} s`);
    }
    await o.sleep(o.pollMs ?? 5000);
  }
}

function imageFailed(name: string, why: string): DeployError {
  return new DeployError("builder_image_failed", `the builder image ${name} is unusable: ${why}`, {
    hint: "see the image build logs in the builder log group, then deploy again",
  });
}
