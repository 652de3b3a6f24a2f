/**
 * Removing cached paths from an unpacked source: what both build caches do when an entry is
 * discarded or unreadable, and before the dependencies are stored without the framework caches.
 *
 * @module
 */

/**
 * Removes paths (relative to the source) recursively; one already gone is not an error.
 *
 * @param rootDir the unpacked source
 * @param paths the paths to remove, relative to `rootDir`
 *
 * @example
 * ```ts
 * await removeSourcePaths("/tmp/job/src", ["node_modules"]);
 * ```
 */
export async function removeSourcePaths(rootDir: string, paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    await Deno.remove(`${rootDir}/${path}`, { recursive: true }).catch(() => {});
  }
}
