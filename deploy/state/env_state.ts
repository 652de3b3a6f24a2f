/**
 * The environment state: `state/<env>.json` in the site bucket, written by `bootstrap` after
 * every step and read by every command that needs the distribution or bucket (`deploy`,
 * `delete`, `destroy`, `status`). It records what bootstrap created so a later run, or another
 * machine, finds the same resources.
 *
 * @module
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { DeployError } from "../errors.ts";
import { aws, awsFailure, isNotFound } from "../infra/aws_errors.ts";
import { stateKey } from "./bucket_layout.ts";

/** A JSON value, as node outputs hold them. */
export type JsonValue = string | number | boolean | null | JsonValue[] | {
  [key: string]: JsonValue;
};

/** What a resource node recorded about its resource (ids, ARNs, names, statuses). */
export type NodeOutputs = Readonly<Record<string, JsonValue>>;

/** One node's entry in the state. */
export interface NodeRecord {
  /** The node's outputs (e.g. `{ id, arn, domainName }` for the distribution). */
  outputs: NodeOutputs;
  /** When the outputs were last written (ISO 8601). */
  updatedAt: string;
}

/** The state file's current format version. */
export const STATE_VERSION = 1;

/**
 * The environment state as stored in `state/<env>.json`. The top-level resource fields are
 * derived from `nodes` for the deploy pipeline's convenience; `nodes` is the source of truth.
 */
export interface EnvState {
  /** Format version ({@linkcode STATE_VERSION}). */
  version: 1;
  /** Environment name. */
  env: string;
  /** The `siteName` key. */
  siteName: string;
  /** AWS account id. */
  accountId: string;
  /** Region of the bucket and builder. */
  region: string;
  /** The site bucket. */
  bucket: string;
  /** CloudFront distribution id, once created. */
  distributionId?: string;
  /** Its `*.cloudfront.net` domain. */
  distributionDomain?: string;
  /** Its ARN. */
  distributionArn?: string;
  /** Whether the custom domain is attached as an alias (false while the certificate is pending). */
  aliasAttached?: boolean;
  /** Origin Access Control id. */
  oacId?: string;
  /** ACM certificate ARN (only with a domain). */
  certificateArn?: string;
  /** Deploy role ARN (only with `githubRepo`). */
  roleArn?: string;
  /** Log group names. */
  logGroups: { builder?: string; cdn?: string };
  /**
   * What the MicroVM builder needs (once bootstrap resolved the base image and created the
   * builder role): the managed base image, and the role used both to build the builder image
   * and to run the builder MicroVM.
   */
  builder?: EnvBuilderState;
  /** Every node's record, by node id. */
  nodes: Record<string, NodeRecord>;
  /** When the state was first written (ISO 8601). */
  createdAt: string;
  /** When it was last written (ISO 8601). */
  updatedAt: string;
}

/** The `builder` section of the state (the field names `deploy/microvm/image.ts` reads). */
export interface EnvBuilderState {
  /** ARN of the managed MicroVM base image. */
  baseImageArn: string;
  /** Role the service builds the builder image with. */
  buildRoleArn: string;
  /** Role the builder MicroVM runs as (the same role). */
  executionRoleArn: string;
}

/** The identity part of a state, fixed for an environment. */
export interface StateIdentity {
  env: string;
  siteName: string;
  accountId: string;
  region: string;
  bucket: string;
}

const str = (v: JsonValue | undefined): string | undefined => typeof v === "string" ? v : undefined;

/**
 * Builds the state from the node records (pure): derives the top-level convenience fields.
 *
 * @param identity environment, site, account, region and bucket
 * @param nodes node records by id
 * @param now the current time
 * @param previous the state read at the start, for `createdAt`
 * @returns the state to write
 */
export function buildEnvState(
  identity: StateIdentity,
  nodes: Record<string, NodeRecord>,
  now: Date,
  previous?: EnvState | null,
): EnvState {
  const out = (id: string, key: string) => str(nodes[id]?.outputs[key]);
  const fields: Partial<EnvState> = {};
  const set = <K extends keyof EnvState>(key: K, value: EnvState[K] | undefined) => {
    if (value !== undefined) fields[key] = value;
  };
  set("distributionId", out("distribution", "id"));
  set("distributionDomain", out("distribution", "domainName"));
  set("distributionArn", out("distribution", "arn"));
  const aliases = nodes.distribution?.outputs.aliases;
  if (nodes.distribution) set("aliasAttached", Array.isArray(aliases) && aliases.length > 0);
  set("oacId", out("oac", "id"));
  set("certificateArn", out("certificate", "arn"));
  set("roleArn", out("deployRole", "arn"));
  const baseImageArn = out("builderBaseImage", "arn");
  const builderRoleArn = out("builderRole", "arn");
  if (baseImageArn && builderRoleArn) {
    set("builder", {
      baseImageArn,
      buildRoleArn: builderRoleArn,
      executionRoleArn: builderRoleArn,
    });
  }
  const logGroups: EnvState["logGroups"] = {};
  const builder = out("builderLogGroup", "name");
  const cdn = out("cdnLogGroup", "name");
  if (builder !== undefined) logGroups.builder = builder;
  if (cdn !== undefined) logGroups.cdn = cdn;
  const stamp = now.toISOString();
  return {
    version: STATE_VERSION,
    ...identity,
    ...fields,
    logGroups,
    nodes,
    createdAt: previous?.createdAt ?? stamp,
    updatedAt: stamp,
  };
}

/**
 * Checks parsed JSON is a state file (pure).
 *
 * @param value parsed JSON
 * @param where the object's location, for the message
 * @returns the state
 * @throws {DeployError} `state_invalid`
 */
export function parseEnvState(value: unknown, where: string): EnvState {
  const v = value as Partial<EnvState> | null;
  if (
    v === null || typeof v !== "object" || v.version !== STATE_VERSION ||
    typeof v.bucket !== "string" || typeof v.env !== "string" ||
    typeof v.nodes !== "object" || v.nodes === null
  ) {
    throw new DeployError(
      "state_invalid",
      `${where} is not a version ${STATE_VERSION} state file`,
      {
        hint: "run `deploy bootstrap` to rewrite it (it adopts the existing resources)",
      },
    );
  }
  return { logGroups: {}, ...v } as EnvState;
}

/**
 * Reads `state/<env>.json`; `null` when it (or the bucket) does not exist.
 *
 * @param s3 S3 client in the bucket's region
 * @param bucket the site bucket
 * @param env environment name
 * @returns the state or null
 * @throws {DeployError} `state_invalid`, or an AWS failure
 */
export async function readEnvState(
  s3: S3Client,
  bucket: string,
  env: string,
): Promise<EnvState | null> {
  const key = stateKey(env);
  const where = `s3://${bucket}/${key}`;
  let text: string;
  try {
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    text = await out.Body!.transformToString();
  } catch (err) {
    if (isNotFound(err, "NoSuchKey")) return null;
    throw awsFailure(err, { resource: where, action: "s3:GetObject" });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new DeployError("state_invalid", `${where} is not valid JSON`, {
      hint: "run `deploy bootstrap` to rewrite it (it adopts the existing resources)",
    });
  }
  return parseEnvState(json, where);
}

/**
 * Writes `state/<env>.json` (pretty JSON, private, tagged like the bucket's objects are not:
 * the state is infrastructure, not site content).
 *
 * @param s3 S3 client in the bucket's region
 * @param state the state (its `bucket` and `env` give the location)
 * @throws {DeployError} an AWS failure
 */
export async function writeEnvState(s3: S3Client, state: EnvState): Promise<void> {
  const key = stateKey(state.env);
  await aws({ resource: `s3://${state.bucket}/${key}`, action: "s3:PutObject" }, () =>
    s3.send(
      new PutObjectCommand({
        Bucket: state.bucket,
        Key: key,
        Body: JSON.stringify(state, null, 2) + "\n",
        ContentType: "application/json",
        CacheControl: "no-store",
      }),
    ));
}

/**
 * Deletes `state/<env>.json` (no error when absent).
 *
 * @param s3 S3 client
 * @param bucket the site bucket
 * @param env environment name
 */
export async function deleteEnvState(s3: S3Client, bucket: string, env: string): Promise<void> {
  const key = stateKey(env);
  try {
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  } catch (err) {
    if (!isNotFound(err, "NoSuchKey")) {
      throw awsFailure(err, { resource: `s3://${bucket}/${key}`, action: "s3:DeleteObject" });
    }
  }
}

/** What {@linkcode loadEnvState} needs. */
export interface LoadEnvStateOptions {
  /** S3 client in the bucket's region. */
  s3: S3Client;
  /** The site bucket (`names.bucket`). */
  bucket: string;
  /** Environment name. */
  env: string;
}

/**
 * The state a command needs to run (the deploy pipeline's entry point): fails with
 * `state_missing` when the environment was never bootstrapped.
 *
 * @param options S3 client, bucket and environment
 * @returns the state
 * @throws {DeployError} `state_missing`, `state_invalid` or an AWS failure
 *
 * @example
 * ```ts
 * const state = await loadEnvState({ s3: clients.s3, bucket: site.names.bucket!, env: site.env });
 * state.distributionId; // "E2ABC…"
 * ```
 */
export async function loadEnvState(options: LoadEnvStateOptions): Promise<EnvState> {
  const state = await readEnvState(options.s3, options.bucket, options.env);
  if (state === null) {
    throw new DeployError(
      "state_missing",
      `environment "${options.env}" is not bootstrapped: no s3://${options.bucket}/${
        stateKey(options.env)
      }`,
      { hint: `run \`deploy bootstrap ${options.env}\` first` },
    );
  }
  return state;
}
