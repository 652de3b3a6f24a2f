/**
 * Reads and writes build records, manifests and source zips in the site bucket.
 *
 * @module
 */
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import {
  type BuildRecord,
  type ChangedManifest,
  isRecordKey,
  manifestKey,
  parseBuildRecord,
  parseChangedManifest,
  recordKey,
  RECORDS_PREFIX,
  sourceKey,
} from "./record.ts";
import { aws, awsFailure, isNotFound } from "../aws/errors.ts";
import { DeployError } from "../errors.ts";

/** A bucket and the client to reach it. */
export interface BuildStoreLocation {
  /** The S3 client. */
  readonly s3: S3Client;
  /** The site bucket. */
  readonly bucket: string;
}

/** What {@linkcode listBuildRecords} found. */
export interface ListedRecords {
  /** Records that parsed, in listing order. */
  readonly records: readonly BuildRecord[];
  /** Records skipped, with why (shown as warnings). */
  readonly skipped: readonly { readonly key: string; readonly reason: string }[];
}

/**
 * Writes a JSON object to the bucket.
 *
 * @param at bucket and client
 * @param key object key
 * @param value JSON-ready value
 */
export async function putJson(at: BuildStoreLocation, key: string, value: unknown): Promise<void> {
  const body = new TextEncoder().encode(JSON.stringify(value, null, 2) + "\n");
  await aws({ resource: `s3://${at.bucket}/${key}`, action: "s3:PutObject" }, () =>
    at.s3.send(
      new PutObjectCommand({
        Bucket: at.bucket,
        Key: key,
        Body: body,
        ContentLength: body.byteLength,
        ContentType: "application/json",
        CacheControl: "no-store",
      }),
    ));
}

/**
 * Reads an object as text.
 *
 * @param at bucket and client
 * @param key object key
 * @returns the body, or undefined when there is no such object
 * @throws any other S3 error
 */
export async function getText(at: BuildStoreLocation, key: string): Promise<string | undefined> {
  try {
    const out = await at.s3.send(new GetObjectCommand({ Bucket: at.bucket, Key: key }));
    return await out.Body?.transformToString() ?? "";
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw awsFailure(err, { resource: `s3://${at.bucket}/${key}`, action: "s3:GetObject" });
  }
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
  at: BuildStoreLocation,
  key: string,
  path: string,
): Promise<void> {
  let out;
  try {
    out = await at.s3.send(new GetObjectCommand({ Bucket: at.bucket, Key: key }));
  } catch (err) {
    if (isNotFound(err)) {
      throw new DeployError("build_source_missing", `s3://${at.bucket}/${key} does not exist`);
    }
    throw err;
  }
  const body = out.Body?.transformToWebStream();
  if (!body) throw new DeployError("build_source_missing", `s3://${at.bucket}/${key} is empty`);
  await body.pipeTo((await Deno.create(path)).writable);
}

/**
 * Whether an object exists.
 *
 * @param at bucket and client
 * @param key object key
 * @returns true when `HeadObject` finds it
 */
export async function objectExists(at: BuildStoreLocation, key: string): Promise<boolean> {
  try {
    await at.s3.send(new HeadObjectCommand({ Bucket: at.bucket, Key: key }));
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw awsFailure(err, { resource: `s3://${at.bucket}/${key}`, action: "s3:GetObject" });
  }
}

/**
 * Stores a build record at `builds/<id>.json`.
 *
 * @param at bucket and client
 * @param record the record
 */
export function putBuildRecord(at: BuildStoreLocation, record: BuildRecord): Promise<void> {
  return putJson(at, recordKey(record.id), record);
}

/**
 * Stores a build's changed-keys manifest at `builds/<id>.changed.json`.
 *
 * @param at bucket and client
 * @param manifest the manifest
 */
export function putManifest(at: BuildStoreLocation, manifest: ChangedManifest): Promise<void> {
  return putJson(at, manifestKey(manifest.id), manifest);
}

/**
 * Reads one build record.
 *
 * @param at bucket and client
 * @param id build id
 * @returns the record; undefined when absent or corrupt
 */
export async function getBuildRecord(
  at: BuildStoreLocation,
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
  at: BuildStoreLocation,
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
export function sourceExists(at: BuildStoreLocation, id: string): Promise<boolean> {
  return objectExists(at, sourceKey(id));
}

/**
 * Lists and reads every build record; a record that does not parse is skipped and reported.
 *
 * @param at bucket and client
 * @returns records and skipped keys
 */
export async function listBuildRecords(at: BuildStoreLocation): Promise<ListedRecords> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await aws(
      { resource: `s3://${at.bucket}/${RECORDS_PREFIX}`, action: "s3:ListBucket" },
      () =>
        at.s3.send(
          new ListObjectsV2Command({
            Bucket: at.bucket,
            Prefix: RECORDS_PREFIX,
            ...(token ? { ContinuationToken: token } : {}),
          }),
        ),
    );
    for (const o of page.Contents ?? []) if (o.Key && isRecordKey(o.Key)) keys.push(o.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
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
