/**
 * The built site's inventory: every file under the output directory with its size and MD5.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { mapLimited } from "@org/shared";
import type { LocalFile } from "./plan.ts";
import { DeployError } from "../errors.ts";
import { HEADERS_FILE, REDIRECTS_FILE } from "../routing/netlify_files.ts";

/** The root files that carry redirect and header rules (Netlify's names). */
const RULE_FILES = new Set([REDIRECTS_FILE, HEADERS_FILE]);

/** Files above this size are hashed in streamed chunks rather than read whole. */
const STREAM_ABOVE = 16 * 1024 * 1024;

/** Options for {@linkcode scanSite}. */
export interface ScanSiteOptions {
  /**
   * Generated files (e.g. `robots.txt`) laid over the directory's content by key, without
   * touching the directory; `plan` uses this so it changes nothing on disk.
   */
  readonly overlay?: ReadonlyMap<string, Uint8Array>;
  /** How many files are hashed at once. Default 8. */
  readonly concurrency?: number;
}

/**
 * Lists every regular file under `distDir` (see {@linkcode listSiteFiles}: symlinks followed,
 * cycles and `.git`/`.jj` skipped) with its site-relative key, size and MD5, sorted by key.
 *
 * @param distDir the build output directory
 * @param options overlay and parallelism
 * @returns the inventory, sorted by key
 * @throws Deno.errors.NotFound when `distDir` does not exist
 *
 * @example
 * ```ts
 * const dist = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dist}/index.html`, "hello");
 * const files = await scanSite(dist); // [{ key: "index.html", size: 5, md5: "5d41…", … }]
 * await Deno.remove(dist, { recursive: true });
 * ```
 */
export async function scanSite(
  distDir: string,
  options: ScanSiteOptions = {},
): Promise<LocalFile[]> {
  const found = await listSiteFiles(distDir);
  const overlay = options.overlay ?? new Map<string, Uint8Array>();
  const files: LocalFile[] = [];
  await mapLimited(found, options.concurrency ?? 8, async ({ key, path }) => {
    // Rules for the CDN, read by the deploy (`routing/`), never served themselves.
    if (overlay.has(key) || RULE_FILES.has(key)) return;
    const { md5, size } = await hashFile(path);
    files.push({ key, size, md5, source: { path } });
  });
  for (const [key, bytes] of overlay) {
    files.push({ key, size: bytes.byteLength, md5: md5Hex(bytes), source: { bytes } });
  }
  return files.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Lower-case hex MD5 of some bytes (the value an S3 single-part ETag carries).
 *
 * @param bytes the content
 * @returns 32 hex characters
 */
export function md5Hex(bytes: Uint8Array): string {
  return createHash("md5").update(bytes).digest("hex");
}

/**
 * MD5 and size of one file, streaming files too big to read at once.
 *
 * @param path the file
 * @returns its hex MD5 and size
 */
export async function hashFile(path: string): Promise<{ md5: string; size: number }> {
  const info = await Deno.stat(path);
  if (info.size <= STREAM_ABOVE) {
    const bytes = await Deno.readFile(path);
    return { md5: md5Hex(bytes), size: bytes.byteLength };
  }
  const hash = createHash("md5");
  let size = 0;
  using file = await Deno.open(path);
  for await (const chunk of file.readable) {
    hash.update(chunk);
    size += chunk.byteLength;
  }
  return { md5: hash.digest("hex"), size };
}

/**
 * Directory and file names never published: VCS metadata (a `.git` file is a worktree or
 * submodule pointer). They can only be in the output by mistake (`paths.dist: "."`), and the
 * repository's history must not go live.
 */
const NEVER_PUBLISHED = new Set([".git", ".jj"]);

/**
 * Every file under a built site with its site-relative key: symlinked files and directories are
 * followed (a directory whose real path is already being walked above it, a cycle, is skipped),
 * `.git` and `.jj` are skipped, unsorted.
 *
 * @param distDir the build output directory
 * @returns each file's key and path
 * @throws Deno.errors.NotFound when `distDir` does not exist
 */
export async function listSiteFiles(distDir: string): Promise<{ key: string; path: string }[]> {
  const out: { key: string; path: string }[] = [];
  await walk(distDir, "", new Set([await Deno.realPath(distDir)]), out);
  return out;
}

async function walk(
  dir: string,
  rel: string,
  ancestors: ReadonlySet<string>,
  out: { key: string; path: string }[],
) {
  for await (const entry of Deno.readDir(dir)) {
    if (NEVER_PUBLISHED.has(entry.name)) continue;
    const path = `${dir}/${entry.name}`;
    const key = rel === "" ? entry.name : `${rel}/${entry.name}`;
    let isDir = entry.isDirectory;
    let isFile = entry.isFile;
    if (entry.isSymlink) {
      const target = await Deno.stat(path).catch(() => undefined); // a dangling link is skipped
      isDir = target?.isDirectory ?? false;
      isFile = target?.isFile ?? false;
    }
    if (isFile) out.push({ key, path });
    else if (isDir) {
      const real = await Deno.realPath(path);
      if (ancestors.has(real)) continue; // a link back up the tree would never end
      await walk(path, key, new Set([...ancestors, real]), out);
    }
  }
}

/**
 * Reads a built file for upload; one that vanished since the scan is `dist_changed` (the build
 * output changed during the deploy), not an unexpected failure.
 */
export async function readBuilt(path: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch (err) {
    throw err instanceof Deno.errors.NotFound ? distChanged(path, err) : err;
  }
}

/**
 * The error for a built file that changed or vanished after the scan hashed it.
 *
 * @param path the file
 * @param cause what showed it
 * @returns `dist_changed`
 */
export function distChanged(path: string, cause?: unknown): DeployError {
  return new DeployError("dist_changed", `${path} changed while the deploy was uploading it`, {
    hint:
      "let the build finish (nothing else may write to the output directory), then deploy again",
    ...(cause === undefined ? {} : { cause }),
  });
}
