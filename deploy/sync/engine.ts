/**
 * The sync engine: makes the live site under a bucket prefix equal to a built directory,
 * uploading only what changed. One module, used by the local deploy path and by the MicroVM
 * build agent alike.
 *
 * @module
 */
import { DeleteObjectsCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { type Logger, mapLimited } from "@org/shared";
import { cacheControlFor } from "./cache_control.ts";
import { changeDigest } from "./change_digest.ts";
import { contentTypeFor } from "./content_type.ts";
import { distChanged, readBuilt, scanSite } from "./local_files.ts";
import { type DeployError, interruptedError } from "../errors.ts";
import { aws, awsErrorCode, awsFailure } from "../aws/errors.ts";
import {
  changedKeys,
  type LocalFile,
  planSync,
  type RemoteObject,
  type SyncPlan,
  syncRefusal,
} from "./plan.ts";
import { MULTIPART_THRESHOLD, uploadMultipart } from "./multipart.ts";
import { decideRetention, type KeptFile } from "./retention.ts";
import { listSite, MD5_METADATA_KEY, normalizePrefix, type SiteLocation } from "./remote.ts";
import { abortable, type RetryOptions, withRetry } from "../aws/retry.ts";
import { copyObject } from "../aws/s3_objects.ts";

/** Progress of a running sync, for a progress bar. */
export interface SyncProgress {
  /** Which step is running. */
  readonly phase: "upload" | "delete";
  /** Items done in this phase. */
  readonly done: number;
  /** Items in this phase. */
  readonly total: number;
  /** Bytes uploaded so far. */
  readonly bytes: number;
  /** Bytes to upload in all. */
  readonly totalBytes: number;
}

/**
 * What a sync publishes: a built directory (with generated files laid over it by key, see
 * `scanSite`), or the files themselves (a restored build's, copied from the bucket).
 */
export type SyncSource =
  | { readonly distDir: string; readonly overlay?: ReadonlyMap<string, Uint8Array> }
  | { readonly files: readonly LocalFile[] };

/** Inputs of {@linkcode syncSite}. */
export type SyncOptions = SiteLocation & SyncSource & SyncSettings;

/** How {@linkcode syncSite} publishes. */
export interface SyncSettings {
  /** Object tags on every uploaded file, e.g. `{ app: "example.com", environment: "production" }`. */
  readonly tags: Readonly<Record<string, string>>;
  /** Re-upload every file (fixes metadata); every re-uploaded key counts for invalidation. */
  readonly refresh?: boolean;
  /** `--force`: allow a sync that deletes most of the live site (see `syncRefusal`). */
  readonly force?: boolean;
  /** Plan only: list and compare, change nothing. */
  readonly dryRun?: boolean;
  /**
   * Keep the files the build no longer has for open tabs (see `retention.ts`): the days of
   * grace, what earlier deploys kept and this deploy's time. None: delete them at once.
   */
  readonly retention?: {
    readonly previousDays: number;
    readonly kept: readonly KeptFile[];
    readonly nowMs: number;
  };
  /** Uploads (and hashes) in flight at once. Default 16. */
  readonly concurrency?: number;
  /**
   * Files larger than this many bytes go up in parts (default 64 MiB; see `multipart.ts`), read
   * one part at a time; `partSize` overrides the part size (tests use small ones).
   */
  readonly multipart?: { readonly threshold?: number; readonly partSize?: number };
  /** Backoff for 503 SlowDown and 5xx. */
  readonly retry?: RetryOptions;
  /** Called as uploads and deletions progress. */
  readonly onProgress?: (progress: SyncProgress) => void;
  /**
   * Called with the keys the sync is about to change, before the first upload (not on a dry
   * run): the deploy records them as owed an invalidation, so a sync that fails half-way
   * still gets its changes invalidated by the next deploy.
   */
  readonly beforeApply?: (changedKeys: readonly string[]) => Promise<void>;
  /** Aborted on Ctrl-C: no further upload or delete starts, and the sync is `interrupted`. */
  readonly signal?: AbortSignal;
  /** Structured log lines. */
  readonly logger?: Logger;
}

/** What a sync did (or, for a dry run, would do). */
export interface SyncResult {
  /** The decision it carried out (its `deletes`: what goes now, kept files left out). */
  readonly plan: SyncPlan;
  /** Every file published (the site as it is once the sync is done). */
  readonly files: readonly LocalFile[];
  /** Site-relative keys uploaded, in plan order (assets, then HTML). */
  readonly uploaded: readonly string[];
  /** Site-relative keys deleted. */
  readonly deleted: readonly string[];
  /** Files of earlier builds kept live after this sync (none without `retention`). */
  readonly kept: readonly KeptFile[];
  /** Kept files whose grace ended: deleted by this sync (a part of `plan.deletes`). */
  readonly expired: readonly string[];
  /** Files already live with the same content. */
  readonly unchanged: number;
  /** Bytes uploaded. */
  readonly bytesUploaded: number;
  /** Keys uploaded (refreshes included) or deleted: the input to the invalidation planner. */
  readonly changedKeys: readonly string[];
  /** Digest of the changes made (see `changeDigest`), for the invalidation's caller reference. */
  readonly changeDigest: string;
  /** Whether this was a dry run. */
  readonly dryRun: boolean;
  /**
   * Why the sync would be refused (`too_many_deletes`); only a dry run returns one, a real
   * sync throws it.
   */
  readonly refusal: DeployError | undefined;
  /** Milliseconds spent on each step (scan and list run concurrently). */
  readonly timings: { readonly scanMs: number; readonly listMs: number; readonly applyMs: number };
}

/** S3 `DeleteObjects` takes at most this many keys per call. */
const DELETE_BATCH = 1000;

/**
 * Syncs `distDir` to `s3://bucket/prefix`: scans and hashes the local files while listing the
 * live prefix, plans with {@linkcode planSync}, then uploads assets, then HTML pages, then
 * deletes what is gone, with bounded parallelism and retry on 503 SlowDown / 5xx. With
 * `retention`, what is gone is deleted only as `decideRetention` says (pages and SEO files at
 * once, other files once their grace has passed); the rest stays live and is returned as kept.
 *
 * Each upload sets `Content-Type`, `Cache-Control`, the tags, `Content-MD5` (S3 verifies the
 * bytes) and an `md5` metadata entry (so a later multipart copy can still be compared). Files
 * over 64 MiB go up in parts, one part in memory at a time (`multipart.ts`).
 *
 * @param options where, what and how
 * @returns the plan and what was done
 * @throws DeployError `dist_empty` when `distDir` holds no file (dry run too), and
 *   `too_many_deletes` when most of the live site would be deleted without `force` (see
 *   `syncRefusal`), before anything is changed
 * @throws the S3 error of a call that still fails after its retries
 *
 * @example
 * ```ts
 * import type { S3Client } from "@aws-sdk/client-s3";
 * import { planInvalidation } from "../cdn/plan_invalidation.ts";
 *
 * async function syncAndPlan(s3: S3Client, bucket: string) {
 *   const tags = { app: "x", environment: "production" };
 *   const result = await syncSite({ s3, bucket, prefix: "site/", distDir: "dist", tags });
 *   return planInvalidation(result.changedKeys, 1000);
 * }
 * ```
 */
export async function syncSite(options: SyncOptions): Promise<SyncResult> {
  const t0 = performance.now();
  let scanMs = 0;
  let listMs = 0;
  const [local, remote] = await Promise.all([
    ("files" in options ? Promise.resolve(options.files) : scanSite(options.distDir, {
      ...(options.overlay ? { overlay: options.overlay } : {}),
      concurrency: 8,
    })).finally(() => scanMs = performance.now() - t0),
    listSite(options, options.retry, (m) => options.logger?.warn(m)).finally(() =>
      listMs = performance.now() - t0
    ),
  ]);
  const full = planSync(local, remote, { refresh: options.refresh ?? false });
  const { plan, kept, expired, guarded } = retain(full, remote, options.retention);
  const t1 = performance.now();
  options.logger?.info("sync planned", {
    uploads: plan.uploads.length,
    deletes: plan.deletes.length,
    kept: kept.length,
    unchanged: plan.unchanged,
  });
  // Generated overlay files (robots.txt) do not make an empty build a site.
  const builtFiles = local.filter((f) => !("bytes" in f.source)).length;
  const refusal = syncRefusal(guarded, builtFiles, { force: options.force ?? false });
  if (refusal?.code === "dist_empty" || (refusal && !options.dryRun)) throw refusal;
  const done = { plan, files: local, digest: changeDigest(plan, remote), kept, expired };
  if (options.dryRun) {
    return result(done, [], [], 0, true, { scanMs, listMs, applyMs: 0 }, refusal);
  }
  await options.beforeApply?.(changedKeys(plan));
  const { uploaded, bytes } = await applyUploads(options, plan);
  const deleted = await applyDeletes(options, plan.deletes);
  return result(done, uploaded, deleted, bytes, false, {
    scanMs,
    listMs,
    applyMs: performance.now() - t1,
  });
}

/**
 * The plan with retention applied: its deletions cut to what goes now, the files kept and
 * expired, and the plan the delete guard judges. That one leaves out the files earlier deploys
 * kept: they left the site before, so pruning them says nothing about this build.
 */
function retain(
  full: SyncPlan,
  remote: readonly RemoteObject[],
  retention: SyncOptions["retention"],
) {
  if (retention === undefined) return { plan: full, kept: [], expired: [], guarded: full };
  const gone = new Set(full.deletes);
  const decision = decideRetention(
    remote.filter((o) => gone.has(o.key)),
    retention.kept,
    retention.nowMs,
    retention.previousDays,
  );
  const earlier = new Set(retention.kept.map((k) => k.key));
  return {
    plan: { ...full, deletes: decision.deleteNow },
    kept: decision.kept,
    expired: decision.expired,
    guarded: { ...full, deletes: full.deletes.filter((k) => !earlier.has(k)) },
  };
}

function result(
  done: {
    plan: SyncPlan;
    files: readonly LocalFile[];
    digest: string;
    kept: readonly KeptFile[];
    expired: readonly string[];
  },
  uploaded: string[],
  deleted: string[],
  bytesUploaded: number,
  dryRun: boolean,
  timings: SyncResult["timings"],
  refusal?: DeployError,
): SyncResult {
  return {
    plan: done.plan,
    files: done.files,
    uploaded,
    deleted,
    kept: done.kept,
    expired: done.expired,
    unchanged: done.plan.unchanged,
    bytesUploaded,
    changedKeys: changedKeys(done.plan),
    changeDigest: done.digest,
    dryRun,
    refusal,
    timings,
  };
}

/**
 * Uploads in two waves, assets then HTML, so no page goes live before its assets.
 */
async function applyUploads(options: SyncOptions, plan: SyncPlan) {
  const prefix = normalizePrefix(options.prefix);
  const tagging = new URLSearchParams(Object.entries(options.tags)).toString();
  const total = plan.uploads.length;
  const totalBytes = plan.uploads.reduce((n, u) => n + u.file.size, 0);
  const uploaded: string[] = [];
  let bytes = 0;
  const report = () =>
    options.onProgress?.({ phase: "upload", done: uploaded.length, total, bytes, totalBytes });
  const threshold = options.multipart?.threshold ?? MULTIPART_THRESHOLD;
  // Ctrl-C aborts the requests in flight too, not only the ones still to start.
  const retry: RetryOptions = {
    ...options.retry,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const put = async (file: LocalFile) => {
    if (options.signal?.aborted) throw interruptedError("the upload");
    if ("copy" in file.source) {
      const { copy } = file.source;
      await copyObject({ s3: options.s3, bucket: options.bucket }, {
        from: copy.key,
        to: prefix + file.key,
        headers: {
          contentType: copy.contentType,
          cacheControl: copy.cacheControl,
          metadata: { [MD5_METADATA_KEY]: file.md5 },
        },
        tags: options.tags,
      }, retry);
      uploaded.push(file.key);
      report();
      return;
    }
    // An empty file has no part to send: a single PUT, whatever the threshold.
    if ("path" in file.source && file.size > threshold && file.size > 0) {
      await uploadMultipart({
        s3: options.s3,
        bucket: options.bucket,
        key: prefix + file.key,
        path: file.source.path,
        size: file.size,
        md5: file.md5,
        metadata: { [MD5_METADATA_KEY]: file.md5 },
        contentType: contentTypeFor(file.key),
        cacheControl: cacheControlFor(file.key),
        tagging,
        ...(options.multipart?.partSize ? { partSize: options.multipart.partSize } : {}),
        retry,
        onPart: (n) => {
          bytes += n;
          report();
        },
      });
      uploaded.push(file.key);
      report();
      return;
    }
    const body = "bytes" in file.source ? file.source.bytes : await readBuilt(file.source.path);
    await aws(
      { resource: `s3://${options.bucket}/${prefix}${file.key}`, action: "s3:PutObject" },
      () =>
        withRetry(
          () =>
            options.s3.send(
              new PutObjectCommand({
                Bucket: options.bucket,
                Key: prefix + file.key,
                Body: body,
                ContentLength: body.byteLength,
                ContentType: contentTypeFor(file.key),
                CacheControl: cacheControlFor(file.key),
                ContentMD5: hexToBase64(file.md5),
                Metadata: { [MD5_METADATA_KEY]: file.md5 },
                ...(tagging === "" ? {} : { Tagging: tagging }),
              }),
              abortable(retry),
            ),
          retry,
        ).catch((err) => {
          // S3 checked the bytes against the scanned MD5: the file changed since the scan.
          if (awsErrorCode(err) === "BadDigest" && "path" in file.source) {
            throw distChanged(file.source.path, err);
          }
          throw err;
        }),
    );
    uploaded.push(file.key);
    bytes += body.byteLength;
    report();
  };
  const assets = plan.uploads.filter((u) => !/\.html?$/i.test(u.file.key)).map((u) => u.file);
  const pages = plan.uploads.filter((u) => /\.html?$/i.test(u.file.key)).map((u) => u.file);
  const limit = options.concurrency ?? 16;
  try {
    await mapLimited(assets, limit, put);
    await mapLimited(pages, limit, put);
  } catch (err) {
    if (!options.signal?.aborted) throw err;
    throw interruptedError(uploadsStopped(uploaded, assets.length, pages.length));
  }
  return { uploaded: plan.uploads.map((u) => u.file.key), bytes };
}

/**
 * What an interrupted upload published and did not (pure), for the `interrupted` message: the
 * counts of each wave, and whether pages changed (assets go first, so until the pages' wave
 * the live pages are the previous build's).
 */
export function uploadsStopped(
  uploaded: readonly string[],
  assets: number,
  pages: number,
): string {
  const pagesUp = uploaded.filter((k) => /\.html?$/i.test(k)).length;
  const assetsUp = uploaded.length - pagesUp;
  const total = assets + pages;
  const live = pagesUp === 0
    ? "no page changed yet, so the live site still serves the previous build's pages"
    : `${pagesUp} of ${pages} page(s) are the new build's, the rest the previous build's`;
  return `the upload: ${uploaded.length} of ${total} file(s) published (${assetsUp} of ` +
    `${assets} asset(s), ${pagesUp} of ${pages} page(s)), ${total - uploaded.length} not; ` +
    `nothing deleted; ${live}`;
}

async function applyDeletes(options: SyncOptions, keys: readonly string[]): Promise<string[]> {
  const prefix = normalizePrefix(options.prefix);
  const deleted: string[] = [];
  for (let i = 0; i < keys.length; i += DELETE_BATCH) {
    if (options.signal?.aborted) throw interruptedError("the deletions");
    const batch = keys.slice(i, i + DELETE_BATCH);
    const context = { resource: `s3://${options.bucket}/${prefix}`, action: "s3:DeleteObject" };
    const out = await aws(context, () =>
      withRetry(
        () =>
          options.s3.send(
            new DeleteObjectsCommand({
              Bucket: options.bucket,
              Delete: { Objects: batch.map((k) => ({ Key: prefix + k })), Quiet: true },
            }),
          ),
        options.retry,
      ));
    const failed = out.Errors ?? [];
    if (failed.length > 0) {
      // A batch answers 200 and lists the keys it could not delete, each with its own code.
      const first = failed[0]!;
      throw awsFailure(
        Object.assign(new Error(first.Message ?? "could not delete"), {
          name: first.Code ?? "DeleteFailed",
        }),
        { resource: `s3://${options.bucket}/${first.Key}`, action: "s3:DeleteObject" },
      );
    }
    deleted.push(...batch);
    options.onProgress?.({
      phase: "delete",
      done: deleted.length,
      total: keys.length,
      bytes: 0,
      totalBytes: 0,
    });
  }
  return deleted;
}

function hexToBase64(hex: string): string {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return btoa(String.fromCharCode(...bytes));
}
