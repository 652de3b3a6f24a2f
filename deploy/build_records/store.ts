/**
 * Reads and writes build records, manifests and source zips in the site bucket, through the
 * bucket's object helpers.
 *
 * @module
 */
import {
  type BuildRecord,
  type ChangedManifest,
  isRecordKey,
  manifestKey,
  parseBuildRecord,
  parseChangedManifest,
  recordKey,
  RECORDS_PREFIX,
  routingKey,
  sourceKey,
} from "./record.ts";
import {
  downloadToFile,
  getText,
  listObjects,
  objectExists,
  putBytes,
  putJson,
  type S3Location,
} from "../aws/s3_objects.ts";
import { DeployError } from "../errors.ts";
import type { RoutingTarget } from "../routing/publish_routing.ts";

/** What {@linkcode listBuildRecords} found. */
export interface ListedRecords {
  /** Records that parsed, in listing order. */
  readonly records: readonly BuildRecord[];
  /** Records skipped, with why (shown as warnings). */
  readonly skipped: readonly { readonly key: string; readonly reason: string }[];
}

/**
 * Downloads an object (a stored source zip) to a file.
 *
 * @param at bucket and client
 * @param key object key
 * @param path the file to create
 * @throws DeployError `build_source_missing` when there is no such object (or it is empty)
 */
export async function downloadObject(
  at: S3Location,
  key: string,
  path: string,
): Promise<void> {
  if (!await downloadToFile(at, key, path)) {
    throw new DeployError("build_source_missing", `s3://${at.bucket}/${key} is missing or empty`);
  }
}

/**
 * Stores a build's source zip at `build/<id>.zip`, where `rollback` rebuilds it from (and the
 * MicroVM builder's agent downloads it).
 *
 * @param at bucket and client
 * @param id build id
 * @param body the zip's bytes
 * @returns the key written
 * @throws {DeployError} an S3 failure
 */
export async function putSourceZip(at: S3Location, id: string, body: Uint8Array): Promise<string> {
  const key = sourceKey(id);
  await putBytes(at, key, body, "application/zip");
  return key;
}

/**
 * Stores a build record at `builds/<id>.json`.
 *
 * @param at bucket and client
 * @param record the record
 */
export function putBuildRecord(at: S3Location, record: BuildRecord): Promise<void> {
  return putJson(at, recordKey(record.id), record);
}

/**
 * Stores a build's changed-keys manifest at `builds/<id>.changed.json`.
 *
 * @param at bucket and client
 * @param manifest the manifest
 */
export function putManifest(at: S3Location, manifest: ChangedManifest): Promise<void> {
  return putJson(at, manifestKey(manifest.id), manifest);
}

/**
 * Stores where a MicroVM build puts the site's rules live, at `build/<id>.routing.json`.
 *
 * @param at bucket and client
 * @param id build id
 * @param target the routing target
 * @returns the key written
 */
export async function putRoutingTarget(
  at: S3Location,
  id: string,
  target: RoutingTarget,
): Promise<string> {
  const key = routingKey(id);
  await putJson(at, key, target);
  return key;
}

/**
 * Reads the routing target the CLI stored for a build.
 *
 * @param at bucket and client
 * @param key its key
 * @returns the target
 * @throws {DeployError} `build_source_missing` when it is absent or not a target
 */
export async function getRoutingTarget(at: S3Location, key: string): Promise<RoutingTarget> {
  const text = await getText(at, key);
  let target: Partial<RoutingTarget> | undefined;
  try {
    target = text === undefined ? undefined : JSON.parse(text);
  } catch {
    target = undefined;
  }
  if (
    typeof target?.rewriteFunction !== "string" || typeof target.distributionId !== "string" ||
    !Array.isArray(target.configRules?.redirects) || !Array.isArray(target.configRules?.headers)
  ) {
    throw new DeployError(
      "build_source_missing",
      `s3://${at.bucket}/${key} is not a rules target`,
      {
        hint: "deploy again (the CLI stores it before launching the build)",
      },
    );
  }
  return target as RoutingTarget;
}

/**
 * Reads one build record.
 *
 * @param at bucket and client
 * @param id build id
 * @returns the record; undefined when absent or corrupt
 */
export async function getBuildRecord(
  at: S3Location,
  id: string,
): Promise<BuildRecord | undefined> {
  const text = await getText(at, recordKey(id));
  if (text === undefined) return undefined;
  const parsed = parseBuildRecord(text);
  return "record" in parsed ? parsed.record : undefined;
}

/**
 * Reads one build's manifest.
 *
 * @param at bucket and client
 * @param id build id
 * @returns the manifest; undefined when absent or corrupt
 */
export async function getManifest(
  at: S3Location,
  id: string,
): Promise<ChangedManifest | undefined> {
  const text = await getText(at, manifestKey(id));
  return text === undefined ? undefined : parseChangedManifest(text);
}

/**
 * Whether a build's source zip is still stored.
 *
 * @param at bucket and client
 * @param id build id
 * @returns true when `build/<id>.zip` exists
 */
export function sourceExists(at: S3Location, id: string): Promise<boolean> {
  return objectExists(at, sourceKey(id));
}

/**
 * Lists and reads every build record; a record that does not parse is skipped and reported.
 *
 * @param at bucket and client
 * @returns records and skipped keys
 */
export async function listBuildRecords(at: S3Location): Promise<ListedRecords> {
  const keys = (await listObjects(at, RECORDS_PREFIX)).map((o) => o.key).filter(isRecordKey);
  const records: BuildRecord[] = [];
  const skipped: { key: string; reason: string }[] = [];
  for (const key of keys) {
    const text = await getText(at, key);
    if (text === undefined) continue;
    const parsed = parseBuildRecord(text);
    if ("record" in parsed) records.push(parsed.record);
    else skipped.push({ key, reason: parsed.error });
  }
  return { records, skipped };
}
