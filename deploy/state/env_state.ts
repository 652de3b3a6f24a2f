/**
 * The environment state: `state/<env>.json` in the site bucket, written by `bootstrap` after
 * every step and read by every command that needs the distribution or bucket (`deploy`,
 * `delete`, `destroy`, `status`). It records what bootstrap created so a later run, or another
 * machine, finds the same resources.
 *
 * @module
 */
import { bootstrapCommandFor } from "../config/env_name.ts";
import type { S3Client } from "@aws-sdk/client-s3";
import { DeployError } from "../errors.ts";
import { getText, putJson, removeObject } from "../aws/s3_objects.ts";
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

/** The advice for a state file that cannot be read. */
const REWRITE_HINT = "run `deploy bootstrap` to rewrite it (it adopts the existing resources)";

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
      { hint: REWRITE_HINT },
    );
  }
  return { logGroups: {}, ...v } as EnvState;
}

/**
 * The fields of a state the MicroVM builder reads ({@linkcode requireBuilderSettings}): a part
 * of {@linkcode EnvState}, so a caller can pass a whole state or only these fields. The names
 * are the contract `bootstrap` writes ({@linkcode buildEnvState}).
 */
export interface EnvStateView {
  /** The CloudFront distribution id. */
  readonly distributionId?: string;
  /** The CloudFront domain (`d111.cloudfront.net`), the origin when no `domain` is set. */
  readonly distributionDomain?: string;
  /** Builder image settings, those that are present. */
  readonly builder?: Partial<EnvBuilderState>;
}

/**
 * Parses a state file's text (pure): the one parser of `state/<env>.json`. A file that is not
 * JSON (or not a version-1 state) is `state_invalid`, never "no state": read as empty it would
 * send the user to re-bootstrap an environment that exists.
 *
 * @param text the file's contents
 * @param where the object's `s3://bucket/key`, for messages
 * @returns the state
 * @throws {DeployError} `state_invalid`
 */
export function parseEnvStateText(text: string, where: string): EnvState {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new DeployError("state_invalid", `${where} is not valid JSON`, { hint: REWRITE_HINT });
  }
  return parseEnvState(json, where);
}

/**
 * Reads `state/<env>.json`, once, with the one parser ({@linkcode parseEnvStateText}).
 *
 * @param s3 S3 client in the bucket's region
 * @param bucket the site bucket
 * @param env environment name
 * @returns the state (`null` when it or the bucket does not exist)
 * @throws {DeployError} `state_invalid`, or an AWS failure
 */
export async function readEnvState(
  s3: S3Client,
  bucket: string,
  env: string,
): Promise<EnvState | null> {
  const key = stateKey(env);
  const text = await getText({ s3, bucket }, key);
  return text === undefined ? null : parseEnvStateText(text, `s3://${bucket}/${key}`);
}

/**
 * The builder image settings a MicroVM build needs, from the state (pure).
 *
 * @param view the state's fields
 * @param env environment name (for the message)
 * @param alternative a second way out for the hint (`deploy` offers `--builder local`)
 * @returns base image and roles
 * @throws DeployError `builder_not_configured` when bootstrap has not recorded them
 */
export function requireBuilderSettings(
  view: EnvStateView,
  env: string,
  alternative?: string,
): { baseImageArn: string; buildRoleArn: string; executionRoleArn?: string } {
  const b = view.builder ?? {};
  if (!b.baseImageArn || !b.buildRoleArn) {
    throw new DeployError(
      "builder_not_configured",
      `state/${env}.json has no builder.baseImageArn/builder.buildRoleArn`,
      {
        hint: `run \`${bootstrapCommandFor(env)}\` to set up the MicroVM builder` +
          (alternative ? `, ${alternative}` : ""),
      },
    );
  }
  return {
    baseImageArn: b.baseImageArn,
    buildRoleArn: b.buildRoleArn,
    ...(b.executionRoleArn ? { executionRoleArn: b.executionRoleArn } : {}),
  };
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
  await putJson({ s3, bucket: state.bucket }, stateKey(state.env), state);
}

/**
 * Deletes `state/<env>.json` (no error when absent).
 *
 * @param s3 S3 client
 * @param bucket the site bucket
 * @param env environment name
 */
export async function deleteEnvState(s3: S3Client, bucket: string, env: string): Promise<void> {
  await removeObject({ s3, bucket }, stateKey(env));
}
