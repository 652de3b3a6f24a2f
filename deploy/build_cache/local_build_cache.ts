/**
 * The local builder's cache: the {@linkcode BuildCache} over the folder store on this machine
 * (`cache_store.ts`). Shared by every site of the user; the dependency entries by key (sites
 * with one lockfile share one), the framework caches per site and branch.
 *
 * @module
 */
import type { Logger } from "@org/shared";
import { type BuildCache, type BuildCacheContext, dependencyPaths } from "../job/build_cache.ts";
import { installCacheKey, type VersionReader } from "./cache_key.ts";
import { removeSourcePaths } from "./source_paths.ts";
import type { CacheStore } from "./cache_store.ts";
import { frameworkCacheKey, frameworkCachePaths } from "./framework_caches.ts";

/** Options of {@linkcode localBuildCache}. */
export interface LocalBuildCacheOptions {
  /** The folder store. */
  readonly store: CacheStore;
  /** The one line about a corrupt entry, or a cache that cannot be used. */
  readonly logger: Logger;
  /** The site (`siteName`) and branch whose framework caches are kept. */
  readonly scope: { readonly site: string; readonly branch: string };
  /** How the runtime's version is read. Default: `node --version` / `bun --version`. */
  readonly readVersion?: VersionReader;
}

/**
 * The cache of builds on this machine.
 *
 * @param options store, logger, scope
 * @returns the build cache
 *
 * @example
 * ```ts
 * import { silentLogger } from "@org/shared";
 * import { openCacheStore } from "./cache_store.ts";
 *
 * const cache = localBuildCache({
 *   store: openCacheStore("/home/me/.cache/org-deploy/cache"),
 *   logger: silentLogger,
 *   scope: { site: "blog", branch: "main" },
 * });
 * ```
 */
export function localBuildCache(options: LocalBuildCacheOptions): BuildCache {
  const { store, logger } = options;
  const frameworkKey = (context: BuildCacheContext) =>
    frameworkCacheKey(options.scope.site, options.scope.branch, context.app);
  return {
    async restoreDependencies(context) {
      const key = await installCacheKey(context, options.readVersion, (l) => logger.warn(l));
      if (key === undefined) return { hit: false };
      const taken = await store.take("deps", key, context.rootDir);
      if (!taken.hit) {
        if (taken.corrupt) {
          logger.warn(
            `dependency cache entry ${key} discarded: ${taken.corrupt}; installing cleanly`,
          );
        }
        return { key, hit: false };
      }
      return { key, hit: true, bytes: taken.meta.bytes };
    },
    async discardDependencies(context, why) {
      logger.warn(`dependency cache entry discarded: ${why}; installing cleanly`);
      await removeSourcePaths(context.rootDir, dependencyPaths(context));
    },
    async restoreFramework(context) {
      return (await store.take("framework", frameworkKey(context), context.rootDir)).hit;
    },
    async save(context, restored) {
      try {
        // The framework caches live inside node_modules (Astro, Vite): they leave it first, so
        // a dependency entry holds only what the lockfile determines and can serve any site.
        await store.put(
          "framework",
          frameworkKey(context),
          context.rootDir,
          frameworkCachePaths(context.app),
        );
        if (restored.key === undefined) return;
        await store.put(
          "deps",
          restored.key,
          context.rootDir,
          dependencyPaths(context),
          restored.bytes,
        );
      } catch (err) {
        // The build succeeded: a cache that cannot be written costs the next build time only.
        logger.warn(`build cache not saved: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  };
}
