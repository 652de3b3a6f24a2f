/**
 * The MicroVM builder's cache: the {@linkcode BuildCache} over the site bucket, where each
 * entry is one `tar.gz` object under `cache/` (a fresh VM has no disk to keep anything on). The
 * agent restores the dependencies before the install and the framework caches before the
 * build; after a successful build it stores the framework caches, and the dependencies when
 * their key was new. A hit is copied onto itself, so the lifecycle rule that expires `cache/`
 * entries 30 days after their last write expires them 30 days after their last use.
 *
 * The archive is made and read by `tar` (installed in the builder image, and in the agent's
 * `--allow-run`): it keeps `node_modules/.bin`'s symlinks and modes, and it is several times
 * faster than a zip written in JavaScript for 10,000 small files.
 *
 * @module
 */
import type { Logger } from "@org/shared";
import {
  copyObject,
  downloadToFile,
  putBytes,
  removeObject,
  type S3Location,
} from "../aws/s3_objects.ts";
import { buildCacheObjectKey } from "../state/bucket_layout.ts";
import { type BuildCache, type BuildCacheContext, dependencyPaths } from "../job/build_cache.ts";
import { installCacheKey, type VersionReader } from "./cache_key.ts";
import { removeSourcePaths } from "./source_paths.ts";
import { frameworkCacheKey, frameworkCachePaths } from "./framework_caches.ts";

/** Runs `tar` with arguments in a directory; resolves whether it succeeded, and its stderr. */
export type TarRunner = (
  args: readonly string[],
  cwd: string,
) => Promise<{ readonly ok: boolean; readonly stderr: string }>;

/** `tar` through `Deno.Command` (needs `--allow-run=tar`). */
export const commandTarRunner: TarRunner = async (
  args: readonly string[],
  cwd: string,
): Promise<{ readonly ok: boolean; readonly stderr: string }> => {
  const out = await new Deno.Command("tar", {
    args: [...args],
    cwd,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  return { ok: out.success, stderr: new TextDecoder().decode(out.stderr).trim() };
};

/** Options of {@linkcode bucketBuildCache}. */
export interface BucketBuildCacheOptions {
  /** The site bucket (the target bucket of the job). */
  readonly at: S3Location;
  /** A folder for the archives while they are made or read (the job's work directory). */
  readonly workDir: string;
  /** The one line about a corrupt entry, or a cache that cannot be used. */
  readonly logger: Logger;
  /** The site and branch whose framework caches are kept. */
  readonly scope: { readonly site: string; readonly branch: string };
  /** How the runtime's version is read. Default: `node --version` / `bun --version`. */
  readonly readVersion?: VersionReader;
  /** How `tar` runs. Default {@linkcode commandTarRunner}. */
  readonly tar?: TarRunner;
}

/**
 * The cache of builds in the site bucket.
 *
 * @param options bucket, work folder, logger, scope
 * @returns the build cache
 *
 * @example
 * ```ts
 * import type { S3Client } from "@aws-sdk/client-s3";
 * import { silentLogger } from "@org/shared";
 *
 * const cacheIn = (s3: S3Client, workDir: string) =>
 *   bucketBuildCache({
 *     at: { s3, bucket: "production-blog-123456789012" },
 *     workDir,
 *     logger: silentLogger,
 *     scope: { site: "blog", branch: "production" },
 *   });
 * ```
 */
export function bucketBuildCache(options: BucketBuildCacheOptions): BuildCache {
  const { at, logger, workDir } = options;
  const tar = options.tar ?? commandTarRunner;
  const frameworkKey = (context: BuildCacheContext) =>
    buildCacheObjectKey(
      "framework",
      frameworkCacheKey(options.scope.site, options.scope.branch, context.app),
    );
  let depsObject: string | undefined;

  /** Downloads and unpacks one archive into the source; a bad archive is removed. */
  const restore = async (
    object: string,
    context: BuildCacheContext,
    paths: readonly string[],
  ): Promise<"hit" | "miss" | "corrupt"> => {
    const file = `${workDir}/restore.tar.gz`;
    if (!(await downloadToFile(at, object, file))) return "miss";
    try {
      const unpacked = await tar(["-xzf", file], context.rootDir);
      if (unpacked.ok) return "hit";
      await removeSourcePaths(context.rootDir, paths);
      await removeObject(at, object).catch(() => {});
      logger.warn(
        `build cache entry ${object} discarded: its archive is unreadable (${
          unpacked.stderr.split("\n")[0] || "tar failed"
        }); installing cleanly`,
      );
      return "corrupt";
    } finally {
      await Deno.remove(file).catch(() => {});
    }
  };

  /** Archives the paths that exist and stores them; false when none exists. */
  const store = async (object: string, context: BuildCacheContext, paths: readonly string[]) => {
    const present: string[] = [];
    for (const path of paths) {
      if (await Deno.lstat(`${context.rootDir}/${path}`).catch(() => undefined)) present.push(path);
    }
    if (present.length === 0) return false;
    const file = `${workDir}/save.tar.gz`;
    try {
      const packed = await tar(["-czf", file, "--", ...present], context.rootDir);
      if (!packed.ok) throw new Error(`tar failed: ${packed.stderr.split("\n")[0]}`);
      await putBytes(at, object, await Deno.readFile(file), "application/gzip");
      return true;
    } finally {
      await Deno.remove(file).catch(() => {});
    }
  };

  return {
    async restoreDependencies(context) {
      const key = await installCacheKey(context, options.readVersion, (l) => logger.warn(l));
      if (key === undefined) return { hit: false };
      depsObject = buildCacheObjectKey("deps", key);
      const restored = await restore(depsObject, context, dependencyPaths(context));
      if (restored !== "hit") return { key, hit: false };
      // Used now: rewritten in place, so the 30-day expiry counts from this build.
      await copyObject(at, {
        from: depsObject,
        to: depsObject,
        headers: {
          contentType: "application/gzip",
          cacheControl: "no-store",
          metadata: { "used-at": new Date().toISOString() },
        },
      }).catch((err) => logger.warn(`build cache entry ${depsObject} not refreshed: ${err}`));
      return { key, hit: true };
    },
    async discardDependencies(context, why) {
      logger.warn(`dependency cache entry discarded: ${why}; installing cleanly`);
      await removeSourcePaths(context.rootDir, dependencyPaths(context));
      if (depsObject) await removeObject(at, depsObject).catch(() => {});
    },
    async restoreFramework(context) {
      return await restore(frameworkKey(context), context, frameworkCachePaths(context.app)) ===
        "hit";
    },
    async save(context, restored) {
      try {
        const framework = frameworkCachePaths(context.app);
        await store(frameworkKey(context), context, framework);
        if (restored.key === undefined || restored.hit) return;
        // The framework caches live in node_modules (Astro, Vite): out of the dependency entry,
        // which any site with this lockfile may restore.
        await removeSourcePaths(context.rootDir, framework);
        await store(buildCacheObjectKey("deps", restored.key), context, dependencyPaths(context));
      } catch (err) {
        // The build succeeded: a cache that cannot be written costs the next build time only.
        logger.warn(`build cache not saved: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  };
}
