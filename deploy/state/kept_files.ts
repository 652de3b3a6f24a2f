/**
 * The files an environment keeps for open tabs (`retention.previousDays`): the list each deploy
 * hands to the next, in `state/<env>.kept.json` beside `state/<env>.json` (which `bootstrap`
 * rewrites whole from its resource nodes), so it survives a change of machine and of builder.
 * The pipeline reads it before the job and hands it in (a MicroVM build reads a copy the CLI
 * puts under `build/`), and writes what the job's sync decided; `status` counts it; `delete`
 * removes it with the site.
 *
 * @module
 */
import { getText, putJson, removeObject, type S3Location } from "../aws/s3_objects.ts";

/** A file kept after the build that had it. */
export interface KeptFile {
  /** Site-relative key. */
  readonly key: string;
  /** Size in bytes (for `status`). */
  readonly size: number;
  /** When the deploy that stopped shipping it ran (ISO 8601): its grace counts from here. */
  readonly since: string;
}

/** Where the list is: the bucket and `keptFilesKey(scope)`. */
export interface KeptAt extends S3Location {
  /** The record's key. */
  readonly key: string;
}

/** How much a kept list holds, for `status`. */
export interface KeptTotals {
  /** Files kept. */
  readonly files: number;
  /** Their bytes. */
  readonly bytes: number;
}

/**
 * Parses a stored list (pure). What cannot be read is no list: the next deploy then starts the
 * grace of every lingering file again, which keeps them longer, never shorter.
 *
 * @param text the object's body
 * @returns the kept files
 */
export function parseKeptFiles(text: string): KeptFile[] {
  try {
    return keptFilesOf((JSON.parse(text) as { files?: unknown } | null)?.files);
  } catch {
    return [];
  }
}

/**
 * The well-formed kept files of a parsed JSON list (pure): this record's, or a build
 * manifest's `kept`.
 *
 * @param list parsed JSON
 * @returns the entries with a string `key`, a number `size` and a string `since`
 */
export function keptFilesOf(list: unknown): KeptFile[] {
  if (!Array.isArray(list)) return [];
  return list.filter((f): f is KeptFile =>
    typeof f?.key === "string" && typeof f.size === "number" && typeof f.since === "string"
  ).map(({ key, size, since }) => ({ key, size, since }));
}

/**
 * Counts a kept list (pure).
 *
 * @param files the kept files
 * @returns files and bytes
 */
export function keptTotals(files: readonly KeptFile[]): KeptTotals {
  return { files: files.length, bytes: files.reduce((n, f) => n + f.size, 0) };
}

/**
 * Reads the kept list; empty when there is none.
 *
 * @param at bucket and key
 * @returns the kept files
 * @throws {DeployError} an S3 failure other than a missing object
 */
export async function readKeptFiles(at: KeptAt): Promise<KeptFile[]> {
  const text = await getText(at, at.key);
  return text === undefined ? [] : parseKeptFiles(text);
}

/**
 * Writes the kept list a deploy decided: nothing when it did not change, and the record removed
 * once nothing is kept any more.
 *
 * @param at bucket and key
 * @param before the list the deploy started from
 * @param after the list its sync decided
 * @throws {DeployError} an S3 failure
 */
export async function writeKeptFiles(
  at: KeptAt,
  before: readonly KeptFile[],
  after: readonly KeptFile[],
): Promise<void> {
  if (JSON.stringify(before) === JSON.stringify(after)) return;
  if (after.length === 0) await removeObject(at, at.key);
  else await putJson(at, at.key, { version: 1, files: after });
}
