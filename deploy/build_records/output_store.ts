/**
 * Keeps a deployed build's output restorable, and reads it back for `rollback`: the manifest
 * at `outputs/manifests/<id>.json` and the content-addressed objects under `outputs/objects/`
 * (see `output.ts`), through the bucket's object helpers.
 *
 * @module
 */
import {
  copyObject,
  getText,
  listObjects,
  objectExists,
  putJson,
  type S3Location,
} from "../aws/s3_objects.ts";
import { mapLimited } from "@org/shared";
import type { RetryOptions } from "../aws/retry.ts";
import type { LocalFile } from "../sync/plan.ts";
import {
  objectsToStore,
  type OutputManifest,
  outputManifest,
  outputManifestKey,
  outputObjectKey,
  parseOutputManifest,
  type RollbackMethod,
  rollbackMethod,
} from "./output.ts";
import { OUTPUT_OBJECTS_PREFIX } from "../state/bucket_layout.ts";

/**
 * The stored objects and when each was last written.
 *
 * @param at bucket and client
 * @returns last-write time (ms) by MD5
 * @throws {DeployError} an S3 failure
 */
export async function listStoredObjects(at: S3Location): Promise<Map<string, number>> {
  const listed = await listObjects(at, OUTPUT_OBJECTS_PREFIX);
  return new Map(listed.map((o) => [o.key.slice(OUTPUT_OBJECTS_PREFIX.length), o.lastModified]));
}

/** What {@linkcode keepOutput} needs beyond the bucket. */
export interface KeepOutputInput {
  /** The build id. */
  readonly id: string;
  /** Every file the sync made live. */
  readonly files: readonly Pick<LocalFile, "key" | "md5" | "size">[];
  /** The key prefix they are live under (`site/`): where the copies come from. */
  readonly prefix: string;
  /** Their objects' tags. */
  readonly tags: Readonly<Record<string, string>>;
  /** Config `retention.buildsDays`. */
  readonly buildsDays: number;
  /** Now (ms): the manifest's `createdAt`. */
  readonly nowMs: number;
  /** Backoff for S3 calls. */
  readonly retry?: RetryOptions;
  /** Copies in flight at once. Default 16. */
  readonly concurrency?: number;
}

/**
 * Makes a build just synced restorable: copies server-side, from the live site, each content
 * not stored yet (or stored too long ago to outlive the build's retention), then writes the
 * manifest, last, so a manifest never names an object that was not stored. Run under the deploy
 * lock right after the sync, while the live keys hold exactly these contents.
 *
 * @param at bucket and client
 * @param input the build's files, where they live, tags and retention
 * @returns how many objects were copied
 * @throws {DeployError} an S3 failure once retries are spent
 */
export async function keepOutput(at: S3Location, input: KeepOutputInput): Promise<number> {
  const stored = await listStoredObjects(at);
  const copies = objectsToStore(input.files, stored, input.nowMs, input.buildsDays);
  await mapLimited(copies, input.concurrency ?? 16, async (f) => {
    await copyObject(at, { from: input.prefix + f.key, to: outputObjectKey(f.md5) }, input.retry);
  });
  await putJson(
    at,
    outputManifestKey(input.id),
    outputManifest(input.id, input.nowMs, input.files, input.tags),
  );
  return copies.length;
}

/**
 * Reads a build's output manifest.
 *
 * @param at bucket and client
 * @param id build id
 * @returns the manifest; undefined when absent or not one
 * @throws {DeployError} an S3 failure
 */
export async function getOutputManifest(
  at: S3Location,
  id: string,
): Promise<OutputManifest | undefined> {
  const text = await getText(at, outputManifestKey(id));
  if (text === undefined) return undefined;
  const parsed = parseOutputManifest(text);
  return "manifest" in parsed ? parsed.manifest : undefined;
}

/**
 * Reads a build's manifest and decides how to roll back to it (`rollbackMethod`).
 *
 * @param at bucket and client
 * @param id the build id
 * @param nowMs now
 * @param buildsDays config `retention.buildsDays`
 * @returns restore (with the manifest) or rebuild (with why)
 * @throws {DeployError} an S3 failure
 */
export async function chooseRollbackMethod(
  at: S3Location,
  id: string,
  nowMs: number,
  buildsDays: number,
): Promise<RollbackMethod> {
  return rollbackMethod(id, await getOutputManifest(at, id), nowMs, buildsDays);
}

/** Past this many objects to check, one listing of the store beats one `HeadObject` each. */
const HEAD_LIMIT = 1000;

/**
 * How many of these kept objects are gone: a restore checks the objects it is about to copy
 * (the paths that differ from the live site) before it changes anything. A few are looked up
 * one by one, many with one listing of the store.
 *
 * @param at bucket and client
 * @param md5s the contents needed
 * @returns how many are not stored
 * @throws {DeployError} an S3 failure
 */
export async function missingObjects(at: S3Location, md5s: readonly string[]): Promise<number> {
  const wanted = [...new Set(md5s)];
  if (wanted.length > HEAD_LIMIT) {
    const stored = await listStoredObjects(at);
    return wanted.filter((m) => !stored.has(m)).length;
  }
  let missing = 0;
  await mapLimited(wanted, 16, async (md5) => {
    if (!(await objectExists(at, outputObjectKey(md5)))) missing++;
  });
  return missing;
}
