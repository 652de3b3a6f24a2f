/**
 * What a build asks of its cache, wherever the cache lives (a folder on this machine for the
 * local builder, one object per entry in the site bucket for the MicroVM builder): restore the
 * dependencies before the install, restore the framework caches before the build, keep both
 * after a successful build. `runBuildSteps` calls it around its steps.
 *
 * @module
 */
import type { Detection } from "./package_manager.ts";

/** Where a build's cache applies. */
export interface BuildCacheContext {
  /** The unpacked source's root (absolute). */
  readonly rootDir: string;
  /** `paths.app` inside it (absolute). */
  readonly appDir: string;
  /** Config `paths.app`, normalized (`.` for the root). */
  readonly app: string;
  /** The package manager and its lockfile. */
  readonly detection: Detection;
  /** The directory holding the lockfile (absolute; the root of a workspace). */
  readonly lockDir: string;
}

/** What restoring the dependencies did. */
export interface DependencyRestore {
  /** The key (none: this install is not cached — Deno, or no lockfile). */
  readonly key?: string;
  /** Whether the dependencies came from the cache. */
  readonly hit: boolean;
  /** Their size (from the entry), to put them back without measuring. */
  readonly bytes?: number;
}

/** The cache as a build uses it. */
export interface BuildCache {
  /**
   * Puts the cached dependencies for this install in place; a miss (or a corrupt entry, said in
   * one line) leaves the tree as it was.
   */
  restoreDependencies(context: BuildCacheContext): Promise<DependencyRestore>;
  /**
   * A restored entry whose install failed: says so in one line and removes what was restored,
   * so the clean install starts from nothing.
   */
  discardDependencies(context: BuildCacheContext, why: string): Promise<void>;
  /** Puts the site's framework caches (this branch's) in place. */
  restoreFramework(context: BuildCacheContext): Promise<boolean>;
  /** After a successful build: keeps the framework caches, then the dependencies. */
  save(context: BuildCacheContext, restored: DependencyRestore): Promise<void>;
}

/** The cache's part of a build's report (`--json` `cache`). */
export interface CacheReport {
  /** The dependency cache's key; none when the install is not cached. */
  readonly key?: string;
  /** Whether the dependencies were restored from the cache. */
  readonly hit: boolean;
  /** Whether framework caches were restored. */
  readonly framework: boolean;
  /** `--no-cache`: neither read nor written. */
  readonly disabled: boolean;
}

/**
 * The `node_modules` folders an install fills, relative to the source root (pure): the app's,
 * and the workspace root's when the lockfile is above it.
 *
 * @param context the build's cache context
 * @returns repo-relative paths
 */
export function dependencyPaths(context: BuildCacheContext): string[] {
  const rel = (dir: string) =>
    dir === context.rootDir
      ? "node_modules"
      : `${dir.slice(context.rootDir.length + 1)}/node_modules`;
  return [...new Set([rel(context.lockDir), rel(context.appDir)])];
}
