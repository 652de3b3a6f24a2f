/**
 * The framework caches a rebuild reuses: folders a framework writes during a build and documents
 * as safe to keep between builds (it checks them itself and rebuilds what is stale). They are
 * kept per site and branch, apart from the dependency cache (which is keyed by the lockfile and
 * may be shared by sites): one site's content store must never reach another's build.
 *
 * Only what the framework's own documentation says to persist is listed; a folder documented as
 * internal (Astro's `.astro/` types, Vite's `dist` output) is not.
 *
 * @module
 */
import { createHash } from "node:crypto";

/** One framework cache folder. */
export interface FrameworkCache {
  /** The framework. */
  readonly framework: string;
  /** The folder, relative to `paths.app`. */
  readonly path: string;
  /** Where the framework documents it as safe to keep between builds. */
  readonly docs: string;
}

/**
 * The framework caches, by framework. Kept only when the folder exists after a build.
 *
 * | framework | folder (under `paths.app`) | documented at |
 * |---|---|---|
 * | Astro | `node_modules/.astro` (`cacheDir`: content layer store, optimized images) | https://docs.astro.build/en/reference/configuration-reference/#cachedir |
 * | Vite | `node_modules/.vite` (pre-bundled dependencies, checked against the lockfile and config) | https://vite.dev/guide/dep-pre-bundling.html#file-system-cache |
 * | Next.js | `.next/cache` (build cache, optimized images, fetch cache) | https://nextjs.org/docs/app/guides/ci-build-caching |
 */
export const FRAMEWORK_CACHES: readonly FrameworkCache[] = [
  {
    framework: "Astro",
    path: "node_modules/.astro",
    docs: "https://docs.astro.build/en/reference/configuration-reference/#cachedir",
  },
  {
    framework: "Vite",
    path: "node_modules/.vite",
    docs: "https://vite.dev/guide/dep-pre-bundling.html#file-system-cache",
  },
  {
    framework: "Next.js",
    path: ".next/cache",
    docs: "https://nextjs.org/docs/app/guides/ci-build-caching",
  },
];

/**
 * The framework caches' folders relative to the source root (pure).
 *
 * @param app config `paths.app`, normalized (`.` for the root)
 * @returns repo-relative paths
 */
export function frameworkCachePaths(app: string): string[] {
  return FRAMEWORK_CACHES.map((c) => (app === "." || app === "" ? c.path : `${app}/${c.path}`));
}

/**
 * The key of a site's framework caches on one branch (pure): one entry per site, branch and
 * `paths.app`, so two branches building at once never share a content store.
 *
 * @param site the site's name (`siteName`)
 * @param branch the branch (or environment) being built
 * @param app config `paths.app`
 * @returns e.g. `framework-1c9e…`
 */
export function frameworkCacheKey(site: string, branch: string, app: string): string {
  const hash = createHash("sha256").update(JSON.stringify([1, site, branch, app])).digest("hex");
  return `framework-${hash.slice(0, 64)}`;
}
