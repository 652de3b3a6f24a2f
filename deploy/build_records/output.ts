/**
 * Kept build outputs, what lets `rollback` restore a build server-side instead of rebuilding
 * it. Pure: keys, the manifest's shape, and the decisions (what to store, whether a build can
 * be restored). The I/O is `output_store.ts`.
 *
 * Layout in the site bucket (beside `build/` and `builds/`):
 * - `outputs/manifests/<id>.json`: the {@linkcode OutputManifest}: every path the build
 *   published, with its content hash, headers and the tags its objects carried
 * - `outputs/objects/<md5>`: one object per distinct content (content-addressed), copied
 *   server-side from the live site after each deploy's sync; a lifecycle rule expires them
 *   `outputExpiryDays` (state/bucket_layout.ts) after their last write, and each deploy rewrites the ones it
 *   still uses that are older than `retention.buildsDays`, so every object of a build younger
 *   than `retention.buildsDays` is still there
 *
 * @module
 */
import type { LocalFile } from "../sync/plan.ts";
import { contentTypeFor } from "../sync/content_type.ts";
import { cacheControlFor } from "../sync/cache_control.ts";
import { parseJsonObject } from "./record.ts";
import { OUTPUT_OBJECTS_PREFIX, OUTPUTS_PREFIX } from "../state/bucket_layout.ts";

const DAY_MS = 86_400_000;

/**
 * Key of a build's output manifest.
 *
 * @param id build id
 * @returns `outputs/manifests/<id>.json`
 */
export function outputManifestKey(id: string): string {
  return `${OUTPUTS_PREFIX}manifests/${id}.json`;
}

/**
 * Key of the stored object holding one content.
 *
 * @param md5 lower-case hex MD5 of the content
 * @returns `outputs/objects/<md5>`
 */
export function outputObjectKey(md5: string): string {
  return `${OUTPUT_OBJECTS_PREFIX}${md5}`;
}

/** One published path of a build, as its manifest holds it. */
export interface OutputFile {
  /** Site-relative key, e.g. `blog/index.html`. */
  readonly key: string;
  /** Lower-case hex MD5 of the content (the stored object's name). */
  readonly md5: string;
  /** Size in bytes. */
  readonly size: number;
  /** The `Content-Type` it was served with. */
  readonly contentType: string;
  /** The `Cache-Control` it was served with. */
  readonly cacheControl: string;
}

/** What a build published, as `outputs/manifests/<id>.json` holds it. */
export interface OutputManifest {
  /** Format version (1). */
  readonly version: 1;
  /** The build id. */
  readonly id: string;
  /** When the deploy stored it, ISO 8601: the start of its retention. */
  readonly createdAt: string;
  /** The tags every object of the build carried. */
  readonly tags: Readonly<Record<string, string>>;
  /** Every published path, sorted by key. */
  readonly files: readonly OutputFile[];
}

/**
 * The manifest of what a sync published (pure): each file's hash and the headers the sync
 * engine gave it.
 *
 * @param id build id
 * @param createdAtMs when it is stored
 * @param files the files the sync made live (every one, unchanged ones too)
 * @param tags the objects' tags
 * @returns the manifest
 */
export function outputManifest(
  id: string,
  createdAtMs: number,
  files: readonly Pick<LocalFile, "key" | "md5" | "size">[],
  tags: Readonly<Record<string, string>>,
): OutputManifest {
  return {
    version: 1,
    id,
    createdAt: new Date(createdAtMs).toISOString(),
    tags: { ...tags },
    files: files.map((f) => ({
      key: f.key,
      md5: f.md5,
      size: f.size,
      contentType: contentTypeFor(f.key),
      cacheControl: cacheControlFor(f.key),
    })).sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  };
}

/**
 * Checks a stored manifest's shape (pure).
 *
 * @param text the object's body
 * @returns the manifest, or why it is not one
 */
export function parseOutputManifest(
  text: string,
): { manifest: OutputManifest } | { error: string } {
  const parsed = parseJsonObject(text);
  if ("error" in parsed) return parsed;
  const m = parsed.object;
  if (m.version !== 1) return { error: `unsupported version ${JSON.stringify(m.version)}` };
  if (typeof m.id !== "string" || m.id === "") return { error: "no id" };
  if (typeof m.createdAt !== "string" || Number.isNaN(Date.parse(m.createdAt))) {
    return { error: "no valid createdAt" };
  }
  const tags = m.tags as Record<string, unknown> | null;
  if (typeof tags !== "object" || tags === null || Array.isArray(tags)) return { error: "no tags" };
  if (Object.values(tags).some((v) => typeof v !== "string")) return { error: "bad tags" };
  if (!Array.isArray(m.files)) return { error: "no files" };
  for (const f of m.files as Record<string, unknown>[]) {
    if (
      typeof f?.key !== "string" || typeof f.md5 !== "string" || !/^[0-9a-f]{32}$/.test(f.md5) ||
      typeof f.size !== "number" || typeof f.contentType !== "string" ||
      typeof f.cacheControl !== "string"
    ) return { error: `bad file entry ${JSON.stringify(f?.key ?? f)}` };
  }
  return { manifest: m as unknown as OutputManifest };
}

/**
 * The manifest's files as the sync engine's input (pure): each one copied from its stored
 * object with the headers it had, so `planSync` decides what differs from the live site
 * exactly as for a deploy.
 *
 * @param manifest the build to restore
 * @returns the files
 */
export function restoreFiles(manifest: OutputManifest): LocalFile[] {
  return manifest.files.map((f) => ({
    key: f.key,
    size: f.size,
    md5: f.md5,
    source: {
      copy: {
        key: outputObjectKey(f.md5),
        contentType: f.contentType,
        cacheControl: f.cacheControl,
      },
    },
  }));
}

/**
 * The objects a deploy must (re)write so its build stays restorable for `buildsDays` (pure):
 * each distinct content that is not stored yet, or whose stored copy was last written more than
 * `buildsDays` ago (the lifecycle rule would expire it before the build's retention ends).
 *
 * @param files the build's files
 * @param stored last-write time (ms) of each stored object, by MD5
 * @param nowMs now
 * @param buildsDays config `retention.buildsDays`
 * @returns one file per content to copy, sorted by MD5
 */
export function objectsToStore<F extends Pick<OutputFile, "md5">>(
  files: readonly F[],
  stored: ReadonlyMap<string, number>,
  nowMs: number,
  buildsDays: number,
): F[] {
  const byMd5 = new Map<string, F>();
  for (const f of files) {
    const written = stored.get(f.md5);
    if (written !== undefined && nowMs - written <= buildsDays * DAY_MS) continue;
    if (!byMd5.has(f.md5)) byMd5.set(f.md5, f);
  }
  return [...byMd5.values()].sort((a, b) => a.md5 < b.md5 ? -1 : 1);
}

/** Whether `rollback` restores the stored output, or rebuilds the stored source and why. */
export type RollbackMethod =
  | { readonly method: "restore"; readonly manifest: OutputManifest }
  | { readonly method: "rebuild"; readonly reason: string };

/**
 * Decides how to roll back to a build (pure): restore its kept output when the manifest is
 * there and the build is within `retention.buildsDays`; otherwise rebuild its stored source,
 * saying why. Whether the objects a restore copies are still there is checked by the restore
 * itself, for the paths that differ only, before it changes anything (`missingObjects`).
 *
 * @param id the build id
 * @param manifest its output manifest; undefined when none is stored
 * @param nowMs now
 * @param buildsDays config `retention.buildsDays`
 * @returns the method
 */
export function rollbackMethod(
  id: string,
  manifest: OutputManifest | undefined,
  nowMs: number,
  buildsDays: number,
): RollbackMethod {
  if (manifest === undefined) {
    return {
      method: "rebuild",
      reason: `build ${id} has no stored output (deployed before outputs were kept, or expired)`,
    };
  }
  const ageDays = (nowMs - Date.parse(manifest.createdAt)) / DAY_MS;
  if (ageDays > buildsDays) {
    return {
      method: "rebuild",
      reason: `build ${id} was deployed ${
        Math.floor(ageDays)
      } days ago, past retention.buildsDays (${buildsDays})`,
    };
  }
  return { method: "restore", manifest };
}
