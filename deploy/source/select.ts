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
  /** Told about each symlink left out because it leads outside the repository. */
  readonly onWarning?: (message: string) => void;
}

/**
 * VCS metadata: never part of a source tree, whatever `sourceIgnore` says; as directories, and
 * as files too (a worktree's or submodule's `.git` file points at the host's repository).
 */
const VCS_DIRS = new Set([".git", ".jj"]);

/**
 * Lists the repo-relative paths (with `/` separators) of the files the source zip holds,
 * sorted by code unit so the same tree always gives the same order.
 *
 * Rules, in order: a path ignored by any `.gitignore` on its way from the root (deeper files
 * may re-include with `!`) is out; a path under a `sourceIgnore` prefix is out (`dist` and
 * `dist/` both mean the `dist` directory, never `distribution.txt`); `.git` and `.jj` are
 * always out; then every file at or under each `sourceInclude` path is added back. Backslashes
 * in the config paths are read as `/`.
 *
 * Symlinks are followed while they stay inside the repository (a symlinked file is zipped as
 * its content, a symlinked directory walked, a link back to a directory being walked skipped);
 * one that leads outside is left out with a warning, so a link to `~/.aws` never ships.
 *
 * @param selection repo root and the two config lists
 * @returns sorted repo-relative file paths
 * @throws DeployError `source_include_invalid` for a leading `/` or a `..` segment,
 *   `source_include_missing` for a path that does not exist, `source_include_empty` for an
 *   empty file or a directory without files; all before anything is zipped or uploaded
 *
 * @example
 * ```ts
 * const files = await listSourceFiles({
 *   repoRoot: Deno.cwd(),
 *   sourceIgnore: ["dist/", "node_modules/"],
 *   sourceInclude: [], // e.g. ".env.production", ignored by git but part of the build
 * });
 * ```
 */
export async function listSourceFiles(selection: SourceSelection): Promise<string[]> {
  const realRoot = await Deno.realPath(selection.repoRoot);
  const ctx: WalkContext = {
    realRoot,
    warn: selection.onWarning ?? (() => {}),
  };
  const included = await includedFiles(selection.repoRoot, selection.sourceInclude, ctx);
  const prefixes = selection.sourceIgnore.map((p) => slashes(p).replace(/^\/+|\/+$/g, ""))
    .filter((p) => p !== "");
  const out: string[] = [];
  await walk(selection.repoRoot, "", [], prefixes, out, ctx, new Set([realRoot]));
  return [...new Set([...out, ...included])].sort(compare);
}

/**
 * Whether `path` is at or under one of the prefixes (segment-wise).
 *
 * @param path repo-relative path
 * @param prefixes normalised prefixes without slashes at either end
 */
export function underPrefix(path: string, prefixes: readonly string[]): boolean {
  return prefixes.map(slashes).some((p) => path === p || path.startsWith(`${p}/`));
}

/**
 * A config path with `\` read as `/` (a path written on Windows, `src\content`).
 *
 * @param path a repo-relative config path
 * @returns the path with forward slashes
 */
export function slashes(path: string): string {
  return path.replaceAll("\\", "/");
}

interface WalkContext {
  /** The repository root's real path: a symlink must resolve under it. */
  readonly realRoot: string;
  readonly warn: (message: string) => void;
}

/**
 * Resolves a symlink: what it is, and its real path when that is inside the repository.
 * A link leading outside (or dangling) gives `undefined`, with a warning for the outside case.
 */
async function resolveLink(
  abs: string,
  path: string,
  ctx: WalkContext,
): Promise<{ isDir: boolean; isFile: boolean; real: string } | undefined> {
  const real = await Deno.realPath(abs).catch(() => undefined);
  if (real === undefined) return undefined;
  if (real !== ctx.realRoot && !real.startsWith(`${ctx.realRoot}/`)) {
    ctx.warn(`source zip: left out ${path}, a symlink to ${real} outside the repository`);
    return undefined;
  }
  const info = await Deno.stat(real).catch(() => undefined);
  if (info === undefined) return undefined;
  return { isDir: info.isDirectory, isFile: info.isFile, real };
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
  ctx: WalkContext,
  ancestors: ReadonlySet<string>,
): Promise<void> {
  const here = await readIgnoreFile(`${abs}/.gitignore`);
  const active = here === undefined ? scopes : [...scopes, { base: rel, rules: here }];
  const entries: Deno.DirEntry[] = [];
  for await (const entry of Deno.readDir(abs)) entries.push(entry);
  entries.sort((a, b) => compare(a.name, b.name));
  for (const entry of entries) {
    const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (VCS_DIRS.has(entry.name)) continue;
    let isDir = entry.isDirectory;
    let isFile = entry.isFile;
    let real: string | undefined;
    if (entry.isSymlink) {
      // Ignore rules come first: an ignored link is never resolved, nor warned about.
      if (underPrefix(path, prefixes) || isIgnored(path, false, active)) continue;
      const target = await resolveLink(`${abs}/${entry.name}`, path, ctx);
      if (target === undefined) continue;
      ({ isDir, isFile, real } = target);
    }
    if (!isDir && !isFile) continue;
    if (underPrefix(path, prefixes) || isIgnored(path, isDir, active)) continue;
    if (isDir) {
      real ??= await Deno.realPath(`${abs}/${entry.name}`);
      if (ancestors.has(real)) continue; // a link back up the tree would never end
      await walk(
        `${abs}/${entry.name}`,
        path,
        active,
        prefixes,
        out,
        ctx,
        new Set([...ancestors, real]),
      );
    } else out.push(path);
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

async function includedFiles(
  repoRoot: string,
  include: readonly string[],
  ctx: WalkContext,
): Promise<string[]> {
  const files: string[] = [];
  for (const raw of include) {
    const path = slashes(raw).replace(/\/+$/, "");
    if (path === "" || path.startsWith("/") || path.split("/").includes("..")) {
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
    if (info.isDirectory) {
      const real = await Deno.realPath(`${repoRoot}/${path}`);
      await walkAll(`${repoRoot}/${path}`, path, found, ctx, new Set([real]));
    } else if (info.size > 0) found.push(path);
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

async function walkAll(
  abs: string,
  rel: string,
  out: string[],
  ctx: WalkContext,
  ancestors: ReadonlySet<string>,
): Promise<void> {
  for await (const entry of Deno.readDir(abs)) {
    if (VCS_DIRS.has(entry.name)) continue;
    const path = `${rel}/${entry.name}`;
    let isDir = entry.isDirectory;
    let isFile = entry.isFile;
    let real: string | undefined;
    if (entry.isSymlink) {
      const target = await resolveLink(`${abs}/${entry.name}`, path, ctx);
      if (target === undefined) continue;
      ({ isDir, isFile, real } = target);
    }
    if (isFile) out.push(path);
    else if (isDir) {
      real ??= await Deno.realPath(`${abs}/${entry.name}`);
      if (ancestors.has(real)) continue;
      await walkAll(`${abs}/${entry.name}`, path, out, ctx, new Set([...ancestors, real]));
    }
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
