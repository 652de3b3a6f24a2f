/**
 * Which repository files go into the source zip: the VCS view of the tree (`.gitignore` at
 * every level), minus the `sourceIgnore` prefixes, plus every `sourceInclude` path.
 *
 * @module
 */
import ignore, { type Ignore } from "ignore";
import { DeployError } from "../errors.ts";

/** Inputs of {@linkcode listSourceFiles}. */
export interface SourceSelection {
  /** Absolute path of the repository root. */
  readonly repoRoot: string;
  /** Repo-relative path prefixes left out (config `sourceIgnore`). */
  readonly sourceIgnore: readonly string[];
  /** Repo-relative paths added back even if ignored (config `sourceInclude`). */
  readonly sourceInclude: readonly string[];
}

/** VCS metadata directories: never part of a source tree, whatever `sourceIgnore` says. */
const VCS_DIRS = new Set([".git", ".jj"]);

/**
 * Lists the repo-relative paths (with `/` separators) of the files the source zip holds,
 * sorted by code unit so the same tree always gives the same order.
 *
 * Rules, in order: a path ignored by any `.gitignore` on its way from the root (deeper files
 * may re-include with `!`) is out; a path under a `sourceIgnore` prefix is out (`dist` and
 * `dist/` both mean the `dist` directory, never `distribution.txt`); `.git/` and `.jj/` are
 * always out; then every file at or under each `sourceInclude` path is added back.
 *
 * @param selection repo root and the two config lists
 * @returns sorted repo-relative file paths
 * @throws DeployError `source_include_invalid` for a leading `/` or a `..` segment,
 *   `source_include_missing` for a path that does not exist, `source_include_empty` for an
 *   empty file or a directory without files; all before anything is zipped or uploaded
 *
 * @example
 * ```ts
 * const files = await listSourceFiles({ repoRoot, sourceIgnore: ["dist/"], sourceInclude: [".env.production"] });
 * ```
 */
export async function listSourceFiles(selection: SourceSelection): Promise<string[]> {
  const included = await includedFiles(selection.repoRoot, selection.sourceInclude);
  const prefixes = selection.sourceIgnore.map((p) => p.replace(/^\/+|\/+$/g, "")).filter((p) =>
    p !== ""
  );
  const out: string[] = [];
  await walk(selection.repoRoot, "", [], prefixes, out);
  return [...new Set([...out, ...included])].sort(compare);
}

/**
 * Whether `path` is at or under one of the prefixes (segment-wise).
 *
 * @param path repo-relative path
 * @param prefixes normalised prefixes without slashes at either end
 */
export function underPrefix(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => path === p || path.startsWith(`${p}/`));
}

interface Scoped {
  readonly base: string;
  readonly rules: Ignore;
}

async function walk(
  abs: string,
  rel: string,
  scopes: readonly Scoped[],
  prefixes: readonly string[],
  out: string[],
): Promise<void> {
  const here = await readIgnoreFile(`${abs}/.gitignore`);
  const active = here === undefined ? scopes : [...scopes, { base: rel, rules: here }];
  const entries: Deno.DirEntry[] = [];
  for await (const entry of Deno.readDir(abs)) entries.push(entry);
  entries.sort((a, b) => compare(a.name, b.name));
  for (const entry of entries) {
    const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
    let isDir = entry.isDirectory;
    let isFile = entry.isFile;
    if (entry.isSymlink) {
      // A symlinked file is zipped as its content; a symlinked directory is skipped, since
      // following it could loop or leave the repository.
      const target = await Deno.stat(`${abs}/${entry.name}`).catch(() => undefined);
      isFile = target?.isFile ?? false;
      isDir = false;
    }
    if (!isDir && !isFile) continue;
    if (isDir && VCS_DIRS.has(entry.name)) continue;
    if (underPrefix(path, prefixes) || isIgnored(path, isDir, active)) continue;
    if (isDir) await walk(`${abs}/${entry.name}`, path, active, prefixes, out);
    else out.push(path);
  }
}

function isIgnored(path: string, isDir: boolean, scopes: readonly Scoped[]): boolean {
  let ignored = false;
  for (const { base, rules } of scopes) {
    const local = base === "" ? path : path.slice(base.length + 1);
    const verdict = rules.test(isDir ? `${local}/` : local);
    if (verdict.ignored) ignored = true;
    else if (verdict.unignored) ignored = false;
  }
  return ignored;
}

async function readIgnoreFile(path: string): Promise<Ignore | undefined> {
  try {
    return ignore().add(await Deno.readTextFile(path));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.IsADirectory) {
      return undefined;
    }
    throw err;
  }
}

async function includedFiles(repoRoot: string, include: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const raw of include) {
    const path = raw.replace(/\/+$/, "");
    if (path === "" || raw.startsWith("/") || path.split("/").includes("..")) {
      throw new DeployError(
        "source_include_invalid",
        `sourceInclude path '${raw}' must be repo-relative, without a leading '/' or '..'`,
      );
    }
    const info = await Deno.stat(`${repoRoot}/${path}`).catch(() => undefined);
    if (info === undefined) {
      throw new DeployError(
        "source_include_missing",
        `sourceInclude path '${raw}' does not exist`,
        { hint: "create it before deploying, or remove it from sourceInclude" },
      );
    }
    const found: string[] = [];
    if (info.isDirectory) await walkAll(`${repoRoot}/${path}`, path, found);
    else if (info.size > 0) found.push(path);
    if (found.length === 0) {
      throw new DeployError(
        "source_include_empty",
        `sourceInclude path '${raw}' is empty`,
        { hint: "a sourceInclude path must hold content at deploy time" },
      );
    }
    files.push(...found);
  }
  return files;
}

async function walkAll(abs: string, rel: string, out: string[]): Promise<void> {
  for await (const entry of Deno.readDir(abs)) {
    const path = `${rel}/${entry.name}`;
    if (entry.isDirectory && !VCS_DIRS.has(entry.name)) {
      await walkAll(`${abs}/${entry.name}`, path, out);
    } else if (entry.isFile) out.push(path);
    else if (entry.isSymlink) {
      const target = await Deno.stat(`${abs}/${entry.name}`).catch(() => undefined);
      if (target?.isFile) out.push(path);
    }
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
