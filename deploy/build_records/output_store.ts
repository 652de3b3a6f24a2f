/**
 * Keeps a deployed build's output restorable, and reads it back for `rollback`: the manifest
 * at `outputs/manifests/<id>.json` and the content-addressed objects under `outputs/objects/`
 * (see `output.ts`), through the bucket's object helpers.
 *
 * @module
 */
import { copyObject, getText, listObjects, putJson, type S3Location } from "../aws/s3_objects.ts";
import { forEachLimited, type RetryOptions } from "../aws/retry.ts";
import type { LocalFile } from "../sync/plan.ts";
import {
  objectsToStore,
  OUTPUT_OBJECTS_PREFIX,
  type OutputManifest,
  outputManifest,
  outputManifestKey,
  outputObjectKey,
  parseOutputManifest,
  type RollbackMethod,
  rollbackMethod,
} from "./output.ts";

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
  await forEachLimited(copies, input.concurrency ?? 16, async (f) => {
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
 * Reads what was kept of a build and decides how to roll back to it (`rollbackMethod`).
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
  const manifest = await getOutputManifest(at, id);
  const stored = manifest ? await listStoredObjects(at) : new Map<string, number>();
  return rollbackMethod(id, manifest, stored, nowMs, buildsDays);
}
