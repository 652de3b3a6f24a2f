/**
 * The local build cache: directories kept between builds under the user's cache folder, beside
 * the deploy work directories (`$HOME/.cache/org-deploy/cache/`). One entry is a directory
 * `<kind>/<key>/` holding `entry.json` and `files/` (the cached trees, at their paths relative
 * to the unpacked source: `node_modules`, `site/node_modules`, `.next/cache`).
 *
 * Entries move, never copy: a build takes an entry by renaming it into its own source tree
 * (restoring 150 MB of `node_modules` costs one rename, where copying it costs seconds) and puts
 * it back by renaming it out again after the build. Every step that another run could see is a
 * single `rename` on one file system, so no lock is needed:
 * - taking renames the entry to a private name first: of two runs that want one entry, one gets
 *   it and the other installs as on a miss;
 * - putting builds the entry under a private name and renames it into place last, so an entry
 *   is either complete or absent, and of two runs saving one key the first wins (a rename onto a
 *   non-empty directory fails) and the other's copy is removed with its work directory;
 * - evicting renames a victim away before removing it, so a run that took it meanwhile keeps it.
 *
 * @module
 */
import { dirname } from "node:path";

/** The cache's folders: one per kind of entry. */
export type CacheKind = "deps" | "framework";

/** Default size bound of the whole cache (every kind). */
export const DEFAULT_CACHE_LIMIT_BYTES = 4 * 1024 ** 3;

/** Private names (`.taking-`, `.saving-`, `.evicting-`) older than this belong to dead runs. */
const ABANDONED_MS = 60 * 60_000;

/** What `entry.json` says. */
export interface CacheEntryMeta {
  /** Layout version of the entry. */
  readonly version: 1;
  /** The key it was saved under. */
  readonly key: string;
  /** The cached trees, relative to the source root. */
  readonly paths: readonly string[];
  /** Their size on disk, in bytes (for the size bound). */
  readonly bytes: number;
  /** When it was last saved (ISO 8601): the oldest go first when the cache is full. */
  readonly savedAt: string;
}

/** What {@linkcode CacheStore.take} found. */
export type TakeResult =
  | { readonly hit: true; readonly meta: CacheEntryMeta }
  | { readonly hit: false; readonly corrupt?: string };

/** The local cache. */
export interface CacheStore {
  /** Its root folder. */
  readonly root: string;
  /**
   * Moves the entry's trees into `sourceRoot` (replacing what is there) and removes the entry.
   * A corrupt entry (no readable `entry.json`, a tree it names missing) is removed and reported.
   */
  take(kind: CacheKind, key: string, sourceRoot: string): Promise<TakeResult>;
  /**
   * Moves the trees at `paths` (those that exist) out of `sourceRoot` into a new entry, unless
   * the key has one already. Then removes the oldest entries past the size bound.
   *
   * @param bytes their size when known (an entry put back after a hit), else measured
   * @returns whether the entry was saved (false: none of the paths exist, or another run saved
   *   the key first)
   */
  put(
    kind: CacheKind,
    key: string,
    sourceRoot: string,
    paths: readonly string[],
    bytes?: number,
  ): Promise<boolean>;
  /** Whether the key has an entry now. */
  has(kind: CacheKind, key: string): Promise<boolean>;
}

/** Options of {@linkcode openCacheStore}. */
export interface CacheStoreOptions {
  /** Size bound of every entry together. Default {@linkcode DEFAULT_CACHE_LIMIT_BYTES}. */
  readonly limitBytes?: number;
  /** Clock for `savedAt` and abandoned names. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * The cache folder under the deploy temp root (`$HOME/.cache/org-deploy/cache`).
 *
 * @param tempRoot the deploy temp root (`deployTempRoot`)
 * @returns the cache root
 */
export function cacheRootIn(tempRoot: string): string {
  return `${tempRoot}/cache`;
}

/**
 * Opens the local cache at `root` (created on first save).
 *
 * @param root the cache folder ({@linkcode cacheRootIn})
 * @param options size bound and clock
 * @returns the store
 *
 * @example
 * ```ts
 * const restore = async (srcRoot: string) => {
 *   const store = openCacheStore("/home/me/.cache/org-deploy/cache");
 *   return (await store.take("deps", "npm-3f2a", srcRoot)).hit;
 * };
 * ```
 */
export function openCacheStore(root: string, options: CacheStoreOptions = {}): CacheStore {
  const limit = options.limitBytes ?? DEFAULT_CACHE_LIMIT_BYTES;
  const now = options.now ?? Date.now;
  const entryDir = (kind: CacheKind, key: string) => `${root}/${kind}/${safeName(key)}`;
  const privateName = (prefix: string) => `${root}/${prefix}${now()}-${crypto.randomUUID()}`;

  return {
    root,
    async take(kind, key, sourceRoot) {
      // The entry's folder is inside the root, so the root exists whenever there is an entry:
      // a miss creates nothing (a build that caches nothing leaves no cache folder behind).
      const claimed = privateName(".taking-");
      try {
        await Deno.rename(entryDir(kind, key), claimed);
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return { hit: false };
        throw err;
      }
      try {
        const meta = await readMeta(claimed, key);
        if (typeof meta === "string") return { hit: false, corrupt: meta };
        for (const path of meta.paths) {
          if (!(await exists(`${claimed}/files/${path}`))) {
            return { hit: false, corrupt: `${path} is missing from the entry (truncated)` };
          }
        }
        for (const path of meta.paths) {
          const dest = `${sourceRoot}/${path}`;
          await Deno.remove(dest, { recursive: true }).catch(() => {});
          await Deno.mkdir(dirname(dest), { recursive: true });
          await Deno.rename(`${claimed}/files/${path}`, dest);
        }
        return { hit: true, meta };
      } finally {
        await Deno.remove(claimed, { recursive: true }).catch(() => {});
      }
    },
    async put(kind, key, sourceRoot, paths, bytes) {
      const target = entryDir(kind, key);
      if (await exists(target)) return false;
      const present: string[] = [];
      for (const path of paths) if (await exists(`${sourceRoot}/${path}`)) present.push(path);
      if (present.length === 0) return false;
      await Deno.mkdir(root, { recursive: true });
      const saving = privateName(".saving-");
      try {
        for (const path of present) {
          await Deno.mkdir(dirname(`${saving}/files/${path}`), { recursive: true });
          await Deno.rename(`${sourceRoot}/${path}`, `${saving}/files/${path}`);
        }
        const meta: CacheEntryMeta = {
          version: 1,
          key,
          paths: present,
          bytes: bytes ?? await treeBytes(`${saving}/files`),
          savedAt: new Date(now()).toISOString(),
        };
        await Deno.writeTextFile(`${saving}/entry.json`, JSON.stringify(meta));
        await Deno.mkdir(dirname(target), { recursive: true });
        try {
          await Deno.rename(saving, target);
        } catch {
          return false; // another run saved this key first: theirs stays
        }
      } finally {
        await Deno.remove(saving, { recursive: true }).catch(() => {});
      }
      await evict(root, limit, now());
      return true;
    },
    has: (kind, key) => exists(`${entryDir(kind, key)}/entry.json`),
  };
}

/**
 * Removes the entries saved longest ago until the rest fit in `limit`, and the private folders
 * of runs that died mid-step.
 *
 * @param root the cache root
 * @param limit bytes all entries may take
 * @param nowMs clock reading
 */
async function evict(root: string, limit: number, nowMs: number): Promise<void> {
  const entries: { dir: string; bytes: number; savedAt: number }[] = [];
  for (const top of await list(root)) {
    const dir = `${root}/${top.name}`;
    if (top.name.startsWith(".")) {
      const at = Number(top.name.split("-")[1]);
      if (Number.isFinite(at) && nowMs - at > ABANDONED_MS) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
      continue;
    }
    for (const entry of await list(dir)) {
      const meta = await readMeta(`${dir}/${entry.name}`);
      if (typeof meta === "string") continue; // being written, or taken meanwhile
      entries.push({
        dir: `${dir}/${entry.name}`,
        bytes: meta.bytes,
        savedAt: Date.parse(meta.savedAt),
      });
    }
  }
  let total = entries.reduce((sum, e) => sum + e.bytes, 0);
  for (const victim of entries.sort((a, b) => a.savedAt - b.savedAt)) {
    if (total <= limit) break;
    const away = `${root}/.evicting-${nowMs}-${crypto.randomUUID()}`;
    try {
      await Deno.rename(victim.dir, away);
    } catch {
      continue; // taken by a build meanwhile: it is not in the cache any more anyway
    }
    total -= victim.bytes;
    await Deno.remove(away, { recursive: true }).catch(() => {});
  }
}

async function readMeta(dir: string, key?: string): Promise<CacheEntryMeta | string> {
  let meta: Partial<CacheEntryMeta>;
  try {
    meta = JSON.parse(await Deno.readTextFile(`${dir}/entry.json`));
  } catch {
    return "its entry.json is missing or unreadable";
  }
  if (
    meta.version !== 1 || !Array.isArray(meta.paths) || typeof meta.bytes !== "number" ||
    typeof meta.savedAt !== "string" || (key !== undefined && meta.key !== key) ||
    meta.paths.some((p) => typeof p !== "string" || p.startsWith("/") || p.includes(".."))
  ) {
    return "its entry.json is not one this version wrote";
  }
  return meta as CacheEntryMeta;
}

/**
 * The bytes a tree takes: every file's size, symlinks not followed.
 *
 * @param dir the tree
 * @returns bytes
 */
export async function treeBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await list(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) bytes += await treeBytes(path);
    else if (entry.isFile) bytes += (await Deno.lstat(path).catch(() => ({ size: 0 }))).size;
  }
  return bytes;
}

async function list(dir: string): Promise<Deno.DirEntry[]> {
  try {
    return await Array.fromAsync(Deno.readDir(dir));
  } catch {
    return [];
  }
}

async function exists(path: string): Promise<boolean> {
  return (await Deno.lstat(path).catch(() => undefined)) !== undefined;
}

/** A key as a folder name: keys are hex with a prefix, but a scope may hold `/`. */
function safeName(key: string): string {
  return key.replace(/[^\w.-]/g, "_");
}
