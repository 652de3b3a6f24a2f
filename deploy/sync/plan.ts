/**
 * The sync decision: which local files to upload, in which order, and which live objects to
 * delete. Pure over two inventories, so `plan` and `deploy` decide identically.
 *
 * @module
 */

/** One file of the built site, as the sync engine sees it. */
export interface LocalFile {
  /** Site-relative key with `/` separators, e.g. `blog/index.html`. */
  readonly key: string;
  /** Size in bytes. */
  readonly size: number;
  /** Lower-case hex MD5 of the content. */
  readonly md5: string;
  /** Where the bytes are: a file path, or the bytes themselves for generated files. */
  readonly source: { readonly path: string } | { readonly bytes: Uint8Array };
}

/** One live object under the site prefix, keyed site-relative. */
export interface RemoteObject {
  /** Site-relative key (the prefix removed). */
  readonly key: string;
  /** Size in bytes. */
  readonly size: number;
  /** The content MD5 when known: the ETag of a single-part upload, or the stored checksum. */
  readonly md5: string | undefined;
}

/** Why a file is uploaded. */
export type UploadReason = "new" | "changed" | "refresh";

/** One planned upload. */
export interface PlannedUpload {
  /** The file to upload. */
  readonly file: LocalFile;
  /** Why it is uploaded. */
  readonly reason: UploadReason;
}

/** What a sync will do, in the order it will do it. */
export interface SyncPlan {
  /** Uploads: every non-HTML file first, then the HTML pages, each group sorted by key. */
  readonly uploads: readonly PlannedUpload[];
  /** Site-relative keys to delete, after all uploads, sorted. */
  readonly deletes: readonly string[];
  /** How many local files are already live with the same content. */
  readonly unchanged: number;
}

/** Options for {@linkcode planSync}. */
export interface PlanSyncOptions {
  /** Re-upload every file even when unchanged (fixes metadata such as headers or tags). */
  readonly refresh?: boolean;
}

/**
 * Decides the sync: a local file is uploaded when no live object has its key (`new`) or the
 * live object's MD5 differs or is unknown (`changed`); a live object with no local file is
 * deleted. Uploads are ordered assets first and HTML after, so a page never goes live before
 * the assets it references; deletions come last for the same reason.
 *
 * @param local the built site's files
 * @param remote the live objects under the site prefix
 * @param options `refresh` re-uploads everything
 * @returns the plan
 *
 * @example
 * ```ts
 * const plan = planSync(localFiles, remoteObjects);
 * plan.uploads.length === 0 && plan.deletes.length === 0; // identical redeploy
 * ```
 */
export function planSync(
  local: readonly LocalFile[],
  remote: readonly RemoteObject[],
  options: PlanSyncOptions = {},
): SyncPlan {
  const live = new Map(remote.map((o) => [o.key, o]));
  const assets: PlannedUpload[] = [];
  const pages: PlannedUpload[] = [];
  let unchanged = 0;
  const localKeys = new Set<string>();
  for (const file of local) {
    localKeys.add(file.key);
    const current = live.get(file.key);
    let reason: UploadReason | undefined;
    if (current === undefined) reason = "new";
    else if (current.md5 !== file.md5 || current.size !== file.size) reason = "changed";
    else if (options.refresh) reason = "refresh";
    if (reason === undefined) {
      unchanged++;
      continue;
    }
    (isHtml(file.key) ? pages : assets).push({ file, reason });
  }
  const byKey = (a: PlannedUpload, b: PlannedUpload) => compare(a.file.key, b.file.key);
  const deletes = remote.map((o) => o.key).filter((k) => !localKeys.has(k)).sort(compare);
  return { uploads: [...assets.sort(byKey), ...pages.sort(byKey)], deletes, unchanged };
}

/**
 * The keys whose CDN copies a sync makes stale: uploads that changed or added content, and
 * deletions. A `refresh` re-upload of identical bytes is not a change.
 *
 * @param plan the sync plan
 * @returns site-relative keys
 */
export function changedKeys(plan: SyncPlan): string[] {
  return [
    ...plan.uploads.filter((u) => u.reason !== "refresh").map((u) => u.file.key),
    ...plan.deletes,
  ];
}

/** Whether a key is an HTML page (uploaded after the assets). */
export function isHtml(key: string): boolean {
  return /\.html?$/i.test(key);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
