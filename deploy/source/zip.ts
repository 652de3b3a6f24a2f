/**
 * The source zip: the selected repository files, streamed into a deterministic archive.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { Zip, ZipDeflate } from "fflate";
import { listSourceFiles, type SourceSelection } from "./select.ts";

/** Inputs of {@linkcode createSourceZip}. */
export interface SourceZipOptions extends SourceSelection {
  /** Where to write the zip (created or truncated). */
  readonly outPath: string;
}

/** What {@linkcode createSourceZip} wrote. */
export interface SourceZip {
  /** The zip's path. */
  readonly path: string;
  /** Repo-relative paths of the zipped files, in archive order. */
  readonly files: readonly string[];
  /** Size of the zip in bytes. */
  readonly bytes: number;
  /** Hex SHA-256 of the zip: equal trees give equal hashes. */
  readonly sha256: string;
}

/**
 * Every entry's timestamp: 1980-01-01 00:00 local time, the first date a zip can hold, built
 * from local fields because zip stores local DOS time, so the bytes do not depend on the
 * machine's time zone.
 */
const FIXED_MTIME = () => new Date(1980, 0, 1, 0, 0, 0);

/**
 * Zips the repository's source files (see `listSourceFiles` for the rules) into `outPath`.
 *
 * The archive is streamed: files are read and compressed one chunk at a time and written as
 * they are produced, so a large repository is never held in memory. Entries are in sorted
 * order, with a fixed timestamp and each file's mode reduced to `0644` or `0755` (`0755` when
 * any execute bit is set), so the same tree produces the same bytes (and
 * the same `sha256`) whatever the machine's umask.
 *
 * @param options repo root, `sourceIgnore`, `sourceInclude` and the output path
 * @returns the zip's path, entries, size and hash
 * @throws DeployError from `listSourceFiles` (a bad `sourceInclude`) before anything is written
 *
 * @example
 * ```ts
 * const zipRepo = (repoRoot: string, outPath: string) =>
 *   createSourceZip({ repoRoot, sourceIgnore: [".git/", "dist/"], sourceInclude: [], outPath });
 * ```
 */
export async function createSourceZip(options: SourceZipOptions): Promise<SourceZip> {
  const files = await listSourceFiles(options);
  const hash = createHash("sha256");
  let bytes = 0;
  let pending: Uint8Array[] = [];
  let failure: unknown;
  const zip = new Zip((err, chunk) => {
    if (err) failure ??= err;
    else pending.push(chunk);
  });
  using out = await Deno.open(options.outPath, { write: true, create: true, truncate: true });
  const flush = async () => {
    if (failure !== undefined) throw failure;
    const chunks = pending;
    pending = [];
    for (const chunk of chunks) {
      hash.update(chunk);
      bytes += chunk.byteLength;
      await writeAll(out, chunk);
    }
  };
  for (const path of files) {
    const abs = `${options.repoRoot}/${path}`;
    const info = await Deno.stat(abs);
    const entry = new ZipDeflate(path, { level: 6 });
    entry.mtime = FIXED_MTIME();
    entry.os = 3; // Unix, so the permission bits (an executable build script) survive
    entry.attrs = ((0o100000 | normalMode(info.mode)) << 16) >>> 0;
    zip.add(entry);
    using file = await Deno.open(abs);
    for await (const chunk of file.readable) {
      entry.push(chunk);
      await flush();
    }
    entry.push(new Uint8Array(0), true);
    await flush();
  }
  zip.end();
  await flush();
  return { path: options.outPath, files, bytes, sha256: hash.digest("hex") };
}

/**
 * The mode recorded for a file: `0755` when any execute bit is set, else `0644`, so a umask of
 * 002 (group-writable files) or 077 does not change the archive's bytes.
 *
 * @param mode the file's `stat` mode (`null` on Windows)
 * @returns `0o755` or `0o644`
 */
export function normalMode(mode: number | null): number {
  return ((mode ?? 0) & 0o111) !== 0 ? 0o755 : 0o644;
}

async function writeAll(file: Deno.FsFile, chunk: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < chunk.byteLength) offset += await file.write(chunk.subarray(offset));
}
