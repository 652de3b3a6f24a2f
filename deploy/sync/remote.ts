/**
 * The live site's inventory: every object under the site prefix in the bucket.
 *
 * @module
 */
import {
  GetBucketEncryptionCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from "@aws-sdk/client-s3";
import type { RemoteObject } from "./plan.ts";
import { mapLimited } from "@org/shared";
import { type RetryOptions, withRetry } from "../aws/retry.ts";
import { aws, awsErrorCode, awsHttpStatus } from "../aws/errors.ts";
import { allItems } from "../aws/pages.ts";

/** Object metadata key (`x-amz-meta-md5`) holding the hex MD5 the sync engine uploaded. */
export const MD5_METADATA_KEY = "md5";

/** Where a site lives: a bucket and a key prefix such as `site/`. */
export interface SiteLocation {
  /** The S3 client. */
  readonly s3: S3Client;
  /** Bucket name. */
  readonly bucket: string;
  /** Key prefix, normally `site/`; `""` for the bucket root. */
  readonly prefix: string;
}

/**
 * Normalises a key prefix: no leading slash, exactly one trailing slash, `""` stays `""`.
 *
 * @param prefix e.g. `site`, `/site/`
 * @returns e.g. `site/`
 */
export function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+|\/+$/g, "");
  return trimmed === "" ? "" : `${trimmed}/`;
}

/**
 * Lists every object under the prefix with `ListObjectsV2`, page by page and without a
 * delimiter (so nested keys are all seen), and returns them site-relative with their MD5.
 *
 * A single-part upload's ETag is its MD5, unless the bucket encrypts with KMS by default
 * ({@linkcode etagsAreMd5}). A multipart ETag (`"<hash>-<parts>"`) never is. For those the MD5
 * is read from the object's `md5` metadata with `HeadObject`; when that is
 * missing too the MD5 is unknown and the file will be re-uploaded.
 *
 * @param site bucket, prefix and client
 * @param retry backoff options for each call
 * @param warn receives a line when the bucket's encryption could not be read (see
 *   {@linkcode etagsAreMd5})
 * @returns the live objects, site-relative
 */
export async function listSite(
  site: SiteLocation,
  retry: RetryOptions = {},
  warn?: (message: string) => void,
): Promise<RemoteObject[]> {
  const prefix = normalizePrefix(site.prefix);
  const objects: RemoteObject[] = [];
  const multipart: { key: string; size: number }[] = [];
  const md5Etags = await etagsAreMd5(site, retry, warn);
  const listed = await aws(
    { resource: `s3://${site.bucket}/${prefix}`, action: "s3:ListBucket" },
    // The paginator cannot resume mid-listing: a page that fails makes the listing again.
    () =>
      withRetry(() => {
        const pages = paginateListObjectsV2({ client: site.s3, pageSize: 1000 }, {
          Bucket: site.bucket,
          Prefix: prefix === "" ? undefined : prefix,
        });
        return allItems(pages, (page) => page.Contents);
      }, retry),
  );
  for (const item of listed) {
    if (item.Key === undefined || !item.Key.startsWith(prefix)) continue;
    const key = item.Key.slice(prefix.length);
    if (key === "" || key.endsWith("/")) continue; // console-made "folder" markers
    const etag = (item.ETag ?? "").replaceAll('"', "").toLowerCase();
    const size = item.Size ?? 0;
    if (md5Etags && /^[0-9a-f]{32}$/.test(etag)) objects.push({ key, size, md5: etag });
    else multipart.push({ key, size });
  }
  await mapLimited(multipart, 8, async ({ key, size }) => {
    const head = await aws(
      { resource: `s3://${site.bucket}/${prefix}${key}`, action: "s3:GetObject" },
      () =>
        withRetry(
          () => site.s3.send(new HeadObjectCommand({ Bucket: site.bucket, Key: prefix + key })),
          retry,
        ),
    );
    const stored = head.Metadata?.[MD5_METADATA_KEY]?.toLowerCase();
    objects.push({
      key,
      size,
      md5: stored !== undefined && /^[0-9a-f]{32}$/.test(stored) ? stored : undefined,
    });
  });
  return objects;
}

/** Default encryptions whose single-part ETags are not the object's MD5. */
const KMS_ALGORITHMS: ReadonlySet<string> = new Set(["aws:kms", "aws:kms:dsse"]);

/**
 * Whether the bucket's single-part ETags are MD5s: false when its default encryption is KMS
 * (SSE-KMS or DSSE-KMS), whose ETags are not; then every object's MD5 comes from its metadata
 * (one `HeadObject` each) rather than re-uploading the whole site on every deploy.
 *
 * No configuration or an S3 without the API (the SSE-S3 default every bucket has had since
 * 2023) means MD5s. A denial (a role without `s3:GetEncryptionConfiguration`) also means MD5s,
 * with a warning. Any other failure, after retries, means "not MD5s": reading every object's
 * metadata is slower but never wrong, where guessing wrong would re-upload a KMS site.
 *
 * @param site bucket and client
 * @param retry backoff options
 * @param warn receives a line when the answer is a guess
 * @returns whether a 32-hex-digit ETag is the MD5
 */
export async function etagsAreMd5(
  site: SiteLocation,
  retry: RetryOptions = {},
  warn: (message: string) => void = () => {},
): Promise<boolean> {
  try {
    const out = await withRetry(
      () => site.s3.send(new GetBucketEncryptionCommand({ Bucket: site.bucket })),
      retry,
    );
    const rules = out.ServerSideEncryptionConfiguration?.Rules ?? [];
    return !rules.some((r) =>
      KMS_ALGORITHMS.has(r.ApplyServerSideEncryptionByDefault?.SSEAlgorithm ?? "")
    );
  } catch (err) {
    const code = awsErrorCode(err) ?? "";
    const status = awsHttpStatus(err);
    if (code === "ServerSideEncryptionConfigurationNotFoundError" || status === 501) return true;
    if (status === 403 || /AccessDenied/.test(code)) {
      warn(
        `cannot read the default encryption of bucket ${site.bucket} ` +
          "(s3:GetEncryptionConfiguration denied): ETags are taken as MD5s, so under SSE-KMS " +
          "every file would be uploaded again",
      );
      return true;
    }
    warn(
      `could not read the default encryption of bucket ${site.bucket} (${code || err}): ` +
        "comparing each object's stored MD5 instead",
    );
    return false;
  }
}
