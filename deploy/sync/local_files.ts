/**
 * The built site's inventory: every file under the output directory with its size and MD5.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { forEachLimited } from "./retry.ts";
import type { LocalFile } from "./plan.ts";

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
 * Lists every regular file under `distDir` (recursively, symlinked files followed, symlinked
 * directories skipped) with its site-relative key, size and MD5, sorted by key.
 *
 * @param distDir the build output directory
 * @param options overlay and parallelism
 * @returns the inventory, sorted by key
 * @throws Deno.errors.NotFound when `distDir` does not exist
 *
 * @example
 * ```ts
 * const files = await scanSite("/repo/dist");
 * ```
 */
export async function scanSite(
  distDir: string,
  options: ScanSiteOptions = {},
): Promise<LocalFile[]> {
  const found: { key: string; path: string }[] = [];
  await walk(distDir, "", found);
  const overlay = options.overlay ?? new Map<string, Uint8Array>();
  const files: LocalFile[] = [];
  await forEachLimited(found, options.concurrency ?? 8, async ({ key, path }) => {
    if (overlay.has(key)) return;
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

async function walk(dir: string, rel: string, out: { key: string; path: string }[]) {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    const key = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory) await walk(path, key, out);
    else if (entry.isFile) out.push({ key, path });
    else if (entry.isSymlink) {
      const target = await Deno.stat(path).catch(() => undefined);
      if (target?.isFile) out.push({ key, path });
    }
  }
}
