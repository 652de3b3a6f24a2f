/**
 * A plugin's scoped state: `state/<env>.<namespace>.json` in the site bucket, written by the
 * plugin's bootstrap after every step (as the site's own state is) and read by its `status` and
 * `destroy`. Its presence is what core commands check: `destroy` refuses while one exists, and
 * `bootstrap` mentions it.
 *
 * @module
 */
import { ListObjectsV2Command, type S3Client } from "@aws-sdk/client-s3";
import { DeployError } from "../errors.ts";
import { awsMaybe } from "../aws/errors.ts";
import { CORE_STATE_SUFFIXES, scopedStateKey, STATE_PREFIX } from "./bucket_layout.ts";
import { getText, putJson, removeObject } from "../aws/s3_objects.ts";
import { type NodeRecord, STATE_VERSION } from "./env_state.ts";

/** A plugin's state file. */
export interface ScopedState {
  /** Format version (the site state's). */
  version: 1;
  /** Environment name. */
  env: string;
  /** The plugin's namespace. */
  namespace: string;
  /** AWS account id. */
  accountId: string;
  /** Every node's record, by node id. */
  nodes: Record<string, NodeRecord>;
  /** When the state was first written (ISO 8601). */
  createdAt: string;
  /** When it was last written (ISO 8601). */
  updatedAt: string;
}

/** Where a scoped state lives. */
export interface ScopedStateLocation {
  /** S3 client in the site bucket's region. */
  readonly s3: S3Client;
  /** The site bucket. */
  readonly bucket: string;
  /** Environment name. */
  readonly env: string;
  /** The plugin's namespace. */
  readonly namespace: string;
}

/**
 * Builds the state to write (pure).
 *
 * @param at where it lives (env and namespace)
 * @param accountId the AWS account id
 * @param nodes node records by id
 * @param now the current time
 * @param previous the state read at the start, for `createdAt`
 * @returns the state
 */
export function buildScopedState(
  at: Pick<ScopedStateLocation, "env" | "namespace">,
  accountId: string,
  nodes: Record<string, NodeRecord>,
  now: Date,
  previous?: ScopedState | null,
): ScopedState {
  const stamp = now.toISOString();
  return {
    version: STATE_VERSION,
    env: at.env,
    namespace: at.namespace,
    accountId,
    nodes,
    createdAt: previous?.createdAt ?? stamp,
    updatedAt: stamp,
  };
}

/**
 * Checks parsed JSON is a scoped state of this namespace (pure).
 *
 * @param value parsed JSON
 * @param where the object's location, for the message
 * @param bootstrap the plugin's bootstrap command, for the hint
 * @returns the state
 * @throws {DeployError} `state_invalid`
 */
export function parseScopedState(value: unknown, where: string, bootstrap: string): ScopedState {
  const v = value as Partial<ScopedState> | null;
  if (
    v === null || typeof v !== "object" || v.version !== STATE_VERSION ||
    typeof v.env !== "string" || typeof v.namespace !== "string" ||
    typeof v.nodes !== "object" || v.nodes === null
  ) {
    throw new DeployError(
      "state_invalid",
      `${where} is not a version ${STATE_VERSION} state file`,
      {
        hint: `run \`${bootstrap}\` to rewrite it (it adopts the existing resources)`,
      },
    );
  }
  return v as ScopedState;
}

/**
 * Reads a scoped state; `null` when it does not exist.
 *
 * @param at where it lives
 * @param bootstrap the plugin's bootstrap command, for hints
 * @returns the state or null
 * @throws {DeployError} `state_invalid`, or an AWS failure
 */
export async function readScopedState(
  at: ScopedStateLocation,
  bootstrap: string,
): Promise<ScopedState | null> {
  const key = scopedStateKey(at.env, at.namespace);
  const where = `s3://${at.bucket}/${key}`;
  const text = await getText(at, key);
  if (text === undefined) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new DeployError("state_invalid", `${where} is not valid JSON`, {
      hint: `run \`${bootstrap}\` to rewrite it (it adopts the existing resources)`,
    });
  }
  return parseScopedState(json, where, bootstrap);
}

/**
 * Writes a scoped state.
 *
 * @param at where it lives
 * @param state the state
 * @throws {DeployError} an AWS failure
 */
export async function writeScopedState(at: ScopedStateLocation, state: ScopedState): Promise<void> {
  await putJson(at, scopedStateKey(at.env, at.namespace), state);
}

/**
 * Deletes a scoped state (no error when absent).
 *
 * @param at where it lives
 */
export async function deleteScopedState(at: ScopedStateLocation): Promise<void> {
  await removeObject(at, scopedStateKey(at.env, at.namespace));
}

/**
 * The namespaces that have a scoped state for an environment (`state/<env>.<ns>.json`), found
 * by listing, so core commands can check them without loading any plugin.
 *
 * @param s3 S3 client in the bucket's region
 * @param bucket the site bucket
 * @param env environment name
 * @returns the namespaces, sorted
 * @throws {DeployError} an AWS failure
 */
export async function scopedStateNamespaces(
  s3: S3Client,
  bucket: string,
  env: string,
): Promise<string[]> {
  const prefix = `${STATE_PREFIX}${env}.`;
  // No bucket (destroyed, or never made): no plugin state either.
  const out = await awsMaybe(
    { resource: `s3://${bucket}/${prefix}`, action: "s3:ListBucket" },
    () => s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix })),
  );
  return (out?.Contents ?? [])
    .map((o) => o.Key?.slice(prefix.length) ?? "")
    .filter((rest) => /^[a-z][a-z0-9-]*\.json$/.test(rest))
    .map((rest) => rest.slice(0, -".json".length))
    .filter((ns) => !CORE_STATE_SUFFIXES.includes(ns))
    .sort();
}
