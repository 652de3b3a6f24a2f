/**
 * The CLI's own small objects in its buckets (environment and plugin state, build records and
 * manifests, the deploy lock, preview records, the owed invalidation): read and write JSON,
 * write bytes (source zips, the builder's agent bundle), check, list and remove, and the
 * conditional write the lock is built on; and the one server-side copy (kept build outputs in
 * and out of `outputs/objects/`). Site uploads go through `sync/`, not here.
 *
 * @module
 */
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { aws, awsFailure, awsHttpStatus, isNotFound } from "./errors.ts";
import { allItems } from "./pages.ts";
import { abortable, type RetryOptions, withRetry } from "./retry.ts";

/** A bucket and the client to reach it. */
export interface S3Location {
  /** The S3 client (in the bucket's region). */
  readonly s3: S3Client;
  /** The bucket. */
  readonly bucket: string;
}

/** `Cache-Control` of every object written here: state is read fresh, never from a cache. */
export const NO_STORE = "no-store";

/** A listed object: its key, upload time and size. */
export interface ListedObject {
  /** The key. */
  readonly key: string;
  /** Upload time, ms since the epoch. */
  readonly lastModified: number;
  /** Size in bytes. */
  readonly size: number;
}

/** A write's precondition: the key is free, or still holds the version read. */
export type PutCondition = { readonly IfNoneMatch: "*" } | { readonly IfMatch: string };

const where = (at: S3Location, key: string) => `s3://${at.bucket}/${key}`;

/**
 * Reads an object as text with its ETag.
 *
 * @param at bucket and client
 * @param key object key
 * @param retry backoff for transient failures (default: none beyond the SDK's own)
 * @returns the body and ETag, or undefined when there is no such object (or bucket)
 * @throws {DeployError} any other S3 failure
 */
export async function getObjectText(
  at: S3Location,
  key: string,
  retry: RetryOptions = { attempts: 1 },
): Promise<{ text: string; etag: string } | undefined> {
  try {
    return await withRetry(async () => {
      const out = await at.s3.send(new GetObjectCommand({ Bucket: at.bucket, Key: key }));
      return { text: await out.Body?.transformToString() ?? "", etag: out.ETag ?? "" };
    }, retry);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw awsFailure(err, { resource: where(at, key), action: "s3:GetObject" });
  }
}

/**
 * Streams an object into a new file (a source zip: too big to hold as text).
 *
 * @param at bucket and client
 * @param key object key
 * @param path the file to create
 * @returns false, with no file made, when there is no such object (or bucket) or it is empty
 * @throws {DeployError} any other S3 failure
 */
export async function downloadToFile(at: S3Location, key: string, path: string): Promise<boolean> {
  let body;
  try {
    const out = await at.s3.send(new GetObjectCommand({ Bucket: at.bucket, Key: key }));
    body = out.Body?.transformToWebStream();
  } catch (err) {
    if (isNotFound(err)) return false;
    throw awsFailure(err, { resource: where(at, key), action: "s3:GetObject" });
  }
  if (!body) return false;
  await body.pipeTo((await Deno.create(path)).writable);
  return true;
}

/**
 * Reads an object as text.
 *
 * @param at bucket and client
 * @param key object key
 * @returns the body, or undefined when there is no such object (or bucket)
 * @throws {DeployError} any other S3 failure
 */
export async function getText(at: S3Location, key: string): Promise<string | undefined> {
  return (await getObjectText(at, key))?.text;
}

function jsonPut(
  at: S3Location,
  key: string,
  value: unknown,
  condition?: PutCondition,
): PutObjectCommand {
  const body = new TextEncoder().encode(JSON.stringify(value, null, 2) + "\n");
  return new PutObjectCommand({
    Bucket: at.bucket,
    Key: key,
    Body: body,
    ContentLength: body.byteLength,
    ContentType: "application/json",
    CacheControl: NO_STORE,
    ...condition,
  });
}

/**
 * Writes a value as pretty JSON, never cached.
 *
 * @param at bucket and client
 * @param key object key
 * @param value JSON-ready value
 * @throws {DeployError} an S3 failure
 */
export async function putJson(at: S3Location, key: string, value: unknown): Promise<void> {
  await aws(
    { resource: where(at, key), action: "s3:PutObject" },
    () => at.s3.send(jsonPut(at, key, value)),
  );
}

/**
 * Writes bytes the CLI stores as they are: a build's source zip, the builder's agent bundle.
 *
 * @param at bucket and client
 * @param key object key
 * @param body the bytes
 * @param contentType their media type (`application/zip`)
 * @throws {DeployError} an S3 failure
 */
export async function putBytes(
  at: S3Location,
  key: string,
  body: Uint8Array,
  contentType: string,
): Promise<void> {
  await aws(
    { resource: where(at, key), action: "s3:PutObject" },
    () =>
      at.s3.send(
        new PutObjectCommand({
          Bucket: at.bucket,
          Key: key,
          Body: body,
          ContentLength: body.byteLength,
          ContentType: contentType,
        }),
      ),
  );
}

/**
 * Writes a value as JSON only if `condition` holds (S3 conditional writes): the one atomic
 * step a lock needs. A retry after a failure whose write took effect anyway (an answer lost
 * on the way) finds its own object and answers 412: only the caller, reading the object back,
 * can tell that apart from another writer's.
 *
 * @param at bucket and client
 * @param key object key
 * @param value JSON-ready value
 * @param condition `IfNoneMatch: "*"` (create) or `IfMatch: <etag>` (replace what was read)
 * @param retry backoff for transient failures (default: none beyond the SDK's own)
 * @returns the ETag written, or undefined when S3 answers 412 (the condition failed) or 409
 *   (a concurrent write)
 * @throws {DeployError} any other S3 failure, once retries are spent
 */
export async function putJsonIf(
  at: S3Location,
  key: string,
  value: unknown,
  condition: PutCondition,
  retry: RetryOptions = { attempts: 1 },
): Promise<string | undefined> {
  try {
    const out = await withRetry(() => at.s3.send(jsonPut(at, key, value, condition)), retry);
    return out.ETag ?? "";
  } catch (err) {
    const status = awsHttpStatus(err);
    if (status === 412 || status === 409) return undefined;
    throw awsFailure(err, { resource: where(at, key), action: "s3:PutObject" });
  }
}

/**
 * Whether an object exists.
 *
 * @param at bucket and client
 * @param key object key
 * @returns true when `HeadObject` finds it
 * @throws {DeployError} an S3 failure other than "not found"
 */
export async function objectExists(at: S3Location, key: string): Promise<boolean> {
  try {
    await at.s3.send(new HeadObjectCommand({ Bucket: at.bucket, Key: key }));
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw awsFailure(err, { resource: where(at, key), action: "s3:GetObject" });
  }
}

/**
 * Every object under a prefix (all pages, no delimiter, so nested keys are all seen).
 *
 * @param at bucket and client
 * @param prefix the key prefix
 * @returns keys and upload times, in listing order
 * @throws {DeployError} an S3 failure
 */
export function listObjects(at: S3Location, prefix: string): Promise<ListedObject[]> {
  return aws({ resource: where(at, prefix), action: "s3:ListBucket" }, async () => {
    const pages = paginateListObjectsV2({ client: at.s3 }, { Bucket: at.bucket, Prefix: prefix });
    return (await allItems(pages, (page) => page.Contents)).flatMap((o) =>
      o.Key ? [{ key: o.Key, lastModified: o.LastModified?.getTime() ?? 0, size: o.Size ?? 0 }] : []
    );
  });
}

/**
 * Deletes an object (no error when it or the bucket is absent); with `ifMatch`, only while it
 * is still the version with that ETag (a conditional delete: a lock released by its holder
 * only).
 *
 * @param at bucket and client
 * @param key object key
 * @param ifMatch the ETag the object must still have
 * @param retry backoff for transient failures (default: none beyond the SDK's own)
 * @returns false when `ifMatch` no longer holds (S3 answers 412), else true
 * @throws {DeployError} any other S3 failure, once retries are spent
 */
export async function removeObject(
  at: S3Location,
  key: string,
  ifMatch?: string,
  retry: RetryOptions = { attempts: 1 },
): Promise<boolean> {
  try {
    await withRetry(
      () =>
        at.s3.send(
          new DeleteObjectCommand({
            Bucket: at.bucket,
            Key: key,
            ...(ifMatch === undefined ? {} : { IfMatch: ifMatch }),
          }),
        ),
      retry,
    );
    return true;
  } catch (err) {
    if (isNotFound(err)) return true;
    if (ifMatch !== undefined && awsHttpStatus(err) === 412) return false;
    throw awsFailure(err, { resource: where(at, key), action: "s3:DeleteObject" });
  }
}

/** What {@linkcode copyObject} copies, and the headers and tags it gives the copy. */
export interface CopySpec {
  /** Source key in the same bucket. */
  readonly from: string;
  /** Destination key. */
  readonly to: string;
  /**
   * The copy's headers, replacing the source's metadata (`MetadataDirective: REPLACE`); none:
   * the source's headers and metadata are kept.
   */
  readonly headers?: {
    readonly contentType: string;
    readonly cacheControl: string;
    readonly metadata: Readonly<Record<string, string>>;
  };
  /** The copy's tags, replacing the source's (`TaggingDirective: REPLACE`); none: kept. */
  readonly tags?: Readonly<Record<string, string>>;
}

/**
 * Copies an object inside the bucket, server-side (`CopyObject`: no byte passes through this
 * machine), retrying transient failures: the copy is idempotent.
 *
 * @param at bucket and client
 * @param spec source, destination, and optionally the copy's headers and tags
 * @param retry backoff for transient failures; its `signal` also aborts the copy in flight
 * @throws {DeployError} an S3 failure once retries are spent (`NoSuchKey` for a missing source)
 */
export async function copyObject(
  at: S3Location,
  spec: CopySpec,
  retry: RetryOptions = {},
): Promise<void> {
  const { headers, tags } = spec;
  await aws(
    { resource: where(at, spec.to), action: "s3:PutObject" },
    () =>
      withRetry(
        () =>
          at.s3.send(
            new CopyObjectCommand({
              Bucket: at.bucket,
              Key: spec.to,
              // The copy source is a URL path: each key segment encoded, the slashes kept.
              CopySource: `${at.bucket}/${spec.from.split("/").map(encodeURIComponent).join("/")}`,
              ...(headers
                ? {
                  MetadataDirective: "REPLACE",
                  ContentType: headers.contentType,
                  CacheControl: headers.cacheControl,
                  Metadata: { ...headers.metadata },
                }
                : {}),
              ...(tags
                ? {
                  TaggingDirective: "REPLACE",
                  Tagging: new URLSearchParams(Object.entries(tags)).toString(),
                }
                : {}),
            }),
            abortable(retry),
          ),
        retry,
      ),
  );
}
