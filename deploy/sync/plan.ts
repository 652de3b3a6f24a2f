/**
 * The sync decision: which local files to upload, in which order, and which live objects to
 * delete. Pure over two inventories, so `plan` and `deploy` decide identically.
 *
 * @module
 */
import { DeployError } from "../errors.ts";

/** One file of the built site, as the sync engine sees it. */
export interface LocalFile {
  /** Site-relative key with `/` separators, e.g. `blog/index.html`. */
  readonly key: string;
  /** Size in bytes. */
  readonly size: number;
  /** Lower-case hex MD5 of the content. */
  readonly md5: string;
  /**
   * Where the bytes are: a file path, the bytes themselves for generated files, or an object
   * in the bucket to copy server-side with the headers it must have (a restored build).
   */
  readonly source:
    | { readonly path: string }
    | { readonly bytes: Uint8Array }
    | {
      readonly copy: {
        readonly key: string;
        readonly contentType: string;
        readonly cacheControl: string;
      };
    };
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
 * const hello = new TextEncoder().encode("hello");
 * const md5 = "5d41402abc4b2a76b9719d911017c592";
 * const local = { key: "index.html", size: 5, md5, source: { bytes: hello } };
 * const plan = planSync([local], [{ key: "index.html", size: 5, md5 }]);
 * if (plan.uploads.length !== 0 || plan.deletes.length !== 0) throw new Error("identical redeploy");
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
 * The keys whose CDN copies a sync makes stale: every upload and every deletion. A `refresh`
 * re-upload of identical bytes counts too: a refresh exists to fix metadata (`Content-Type`,
 * `Cache-Control`), and the CDN keeps serving the old headers until the path is invalidated.
 *
 * @param plan the sync plan
 * @returns site-relative keys
 */
export function changedKeys(plan: SyncPlan): string[] {
  return [...plan.uploads.map((u) => u.file.key), ...plan.deletes];
}

/** A sync that would delete more than this share of the live objects needs `force`. */
export const MAX_DELETE_SHARE = 0.5;
/** ...unless it deletes at most this many objects (pruning a small site is routine). */
export const DELETE_GUARD_FLOOR = 10;

/** Options for {@linkcode syncRefusal}. */
export interface SyncGuardOptions {
  /** `--force`: allow deleting most of the live site. */
  readonly force?: boolean;
}

/**
 * Why a sync must not run, so a broken or empty build never wipes the live site: no built file
 * at all (`dist_empty`, even with `force`: `deploy delete` empties a site on purpose), or more
 * than {@linkcode MAX_DELETE_SHARE} of the live objects and more than
 * {@linkcode DELETE_GUARD_FLOOR} of them deleted without `force` (`too_many_deletes`).
 *
 * @param plan the sync plan
 * @param builtFiles how many files the build output holds, not counting generated SEO files
 * @param options `force`
 * @returns the error to throw, or undefined when the sync may run
 */
export function syncRefusal(
  plan: SyncPlan,
  builtFiles: number,
  options: SyncGuardOptions = {},
): DeployError | undefined {
  if (builtFiles === 0) {
    return new DeployError("dist_empty", "the build output holds no files", {
      hint:
        "check that the build writes into paths.dist; to take the site down, run `deploy delete`",
    });
  }
  const live = plan.deletes.length + plan.unchanged +
    plan.uploads.filter((u) => u.reason !== "new").length;
  const deletes = plan.deletes.length;
  if (!options.force && deletes > DELETE_GUARD_FLOOR && deletes > live * MAX_DELETE_SHARE) {
    return new DeployError(
      "too_many_deletes",
      `the deploy would delete ${deletes} of the ${live} live files`,
      {
        hint: "check the build output (paths.dist); if the deletions are intended, " +
          "rerun with --force",
      },
    );
  }
  return undefined;
}

/** Whether a key is an HTML page (uploaded after the assets). */
export function isHtml(key: string): boolean {
  return /\.html?$/i.test(key);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
