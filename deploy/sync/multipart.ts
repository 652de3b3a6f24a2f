/**
 * Large files go up in parts: one `PutObject` is capped at 5 GiB by S3 and would hold the whole
 * file in memory; a multipart upload reads one part at a time, retries a part rather than the
 * file, and has no practical size limit (10,000 parts).
 *
 * @module
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  type S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { aws } from "../aws/errors.ts";
import { distChanged, md5Hex } from "./local_files.ts";
import { abortable, type RetryOptions, withRetry } from "../aws/retry.ts";

const MiB = 1024 * 1024;

/** Files larger than this are uploaded in parts. */
export const MULTIPART_THRESHOLD = 64 * MiB;

/** The usual part size. */
export const PART_SIZE = 16 * MiB;

/** S3's limits: parts of at least 5 MiB (but the last), at most 10,000 of them. */
const MIN_PART = 5 * MiB;
const MAX_PARTS = 10_000;

/**
 * The part size for a file (pure): `base`, raised to S3's 5 MiB minimum, or larger, in whole MiB,
 * when the file would otherwise need more than 10,000 parts.
 *
 * @param size the file's size in bytes
 * @param base the preferred part size (default {@linkcode PART_SIZE})
 * @returns bytes per part
 *
 * @example
 * ```ts
 * partSizeFor(100 * 1024 ** 3); // 16 MiB: 6,400 parts
 * partSizeFor(200 * 1024 ** 3); // 21 MiB: 9,753 parts
 * ```
 */
export function partSizeFor(size: number, base: number = PART_SIZE): number {
  const needed = Math.ceil(Math.ceil(size / MAX_PARTS) / MiB) * MiB;
  return Math.max(base, MIN_PART, needed);
}

/** What {@linkcode uploadMultipart} needs. */
export interface MultipartUpload {
  readonly s3: S3Client;
  readonly bucket: string;
  readonly key: string;
  /** The local file. */
  readonly path: string;
  /** Its size in bytes. */
  readonly size: number;
  /** Its hex MD5 as scanned: the parts read must add up to it. */
  readonly md5: string;
  /** Object metadata (the MD5 goes here too: a multipart object's ETag is not its MD5). */
  readonly metadata: Readonly<Record<string, string>>;
  readonly contentType: string;
  readonly cacheControl: string;
  /** URL-encoded tags, or empty. */
  readonly tagging: string;
  /** Preferred bytes per part (default {@linkcode PART_SIZE}; see {@linkcode partSizeFor}). */
  readonly partSize?: number;
  readonly retry?: RetryOptions;
  /** Called with the byte count of each part once it is stored. */
  readonly onPart?: (bytes: number) => void;
}

/**
 * Uploads one file in parts, each part with its `Content-MD5` and retried on its own. The parts
 * read must hash to the scanned MD5 before the upload is completed, so a file changed since
 * the scan is never published under the old checksum. On any failure the upload is aborted (S3
 * keeps no orphan parts to bill) and the error rethrown.
 *
 * @param upload the file, where it goes and its headers
 * @throws {DeployError} the mapped S3 failure of a call that still fails after its retries;
 *   `dist_changed` when the file changed or vanished while it was being uploaded
 */
export async function uploadMultipart(upload: MultipartUpload): Promise<void> {
  const { s3, bucket, key, retry } = upload;
  // Every call of an upload needs s3:PutObject: a denial names that, with the object.
  const put = <T>(call: () => Promise<T>) =>
    aws(
      { resource: `s3://${bucket}/${key}`, action: "s3:PutObject" },
      () => withRetry(call, retry),
    );
  const created = await put(() =>
    s3.send(
      new CreateMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        ContentType: upload.contentType,
        CacheControl: upload.cacheControl,
        Metadata: { ...upload.metadata },
        ...(upload.tagging === "" ? {} : { Tagging: upload.tagging }),
        // Stated, not left to the SDK's default: the parts' checksums must be of the type the
        // upload was created with, or S3 refuses them.
        ChecksumAlgorithm: "CRC32",
      }),
      abortable(retry),
    )
  );
  const uploadId = created.UploadId!;
  const partSize = partSizeFor(upload.size, upload.partSize);
  let file: Deno.FsFile | undefined;
  try {
    file = await Deno.open(upload.path, { read: true }).catch((err) => {
      throw err instanceof Deno.errors.NotFound ? distChanged(upload.path, err) : err;
    });
    const parts: { ETag: string; PartNumber: number; ChecksumCRC32?: string }[] = [];
    const whole = createHash("md5");
    const buffer = new Uint8Array(Math.min(partSize, upload.size));
    for (let offset = 0, n = 1; offset < upload.size; offset += partSize, n++) {
      const body = await readAt(
        upload.path,
        file,
        buffer,
        offset,
        Math.min(partSize, upload.size - offset),
      );
      whole.update(body);
      const out = await put(() =>
        s3.send(
          new UploadPartCommand({
            Bucket: bucket,
            Key: key,
            UploadId: uploadId,
            PartNumber: n,
            Body: body,
            ContentLength: body.byteLength,
            ContentMD5: Buffer.from(md5Hex(body), "hex").toString("base64"),
            ChecksumAlgorithm: "CRC32",
          }),
          abortable(retry),
        )
      );
      parts.push({
        ETag: out.ETag!,
        PartNumber: n,
        ...(out.ChecksumCRC32 ? { ChecksumCRC32: out.ChecksumCRC32 } : {}),
      });
      upload.onPart?.(body.byteLength);
    }
    if (whole.digest("hex") !== upload.md5) throw distChanged(upload.path);
    await put(() =>
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
        abortable(retry),
      )
    );
  } catch (err) {
    // Not under the signal: an interrupted upload still cleans its parts up.
    const { signal: _stopped, ...cleanup } = retry ?? {};
    await withRetry(
      () =>
        s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId })),
      cleanup,
    ).catch(() => {/* the original error matters; a lifecycle rule can sweep leftovers */});
    throw err;
  } finally {
    file?.close();
  }
}

/** Reads exactly `length` bytes at `offset` into the start of `buffer`. */
async function readAt(
  path: string,
  file: Deno.FsFile,
  buffer: Uint8Array,
  offset: number,
  length: number,
): Promise<Uint8Array> {
  await file.seek(offset, Deno.SeekMode.Start);
  let got = 0;
  while (got < length) {
    const n = await file.read(buffer.subarray(got, length));
    if (n === null) throw distChanged(path);
    got += n;
  }
  return buffer.subarray(0, length);
}
