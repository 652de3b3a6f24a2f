/**
 * Generates the SEO files for a built site and writes them into its output directory.
 *
 * @module
 */
import type { Logger } from "@org/shared";
import { listSiteFiles } from "../sync/local_files.ts";
import {
  robotsTxt,
  type SeoSettings,
  type SeoTarget,
  sitemapWanted,
  sitemapXml,
} from "./policy.ts";

/** The generated files by site-relative key (`robots.txt`, `sitemap.xml`), and any warning. */
export interface SeoFiles {
  /** File bodies by key; a key that is absent is left as the site built it. */
  readonly files: ReadonlyMap<string, Uint8Array>;
  /** Warnings for the user, e.g. a wanted sitemap with no origin. */
  readonly warnings: readonly string[];
}

/**
 * Decides the SEO files for a site from its keys: `robots.txt` per `seo.robots` and
 * `sitemap.xml` per `seo.sitemap`. A wanted sitemap without a resolvable origin is skipped
 * with a warning (and the robots file then has no `Sitemap:` line).
 *
 * @param keys the site's site-relative keys (HTML pages become sitemap URLs)
 * @param seo the settings
 * @param target environment and origin
 * @returns the files and warnings
 */
export function generateSeoFiles(
  keys: readonly string[],
  seo: SeoSettings,
  target: SeoTarget,
): SeoFiles {
  const files = new Map<string, Uint8Array>();
  const warnings: string[] = [];
  const text = new TextEncoder();
  const robots = robotsTxt(seo, target);
  if (robots !== undefined) files.set("robots.txt", text.encode(robots));
  if (sitemapWanted(seo.sitemap, target.isProduction)) {
    if (target.origin === undefined) {
      warnings.push(
        "sitemap skipped: no site origin is known (set `domain`, or deploy once the CDN domain exists)",
      );
    } else {
      files.set("sitemap.xml", text.encode(sitemapXml(target.origin, keys)));
    }
  }
  return { files, warnings };
}

/**
 * Lists the site-relative keys of every file under a directory.
 *
 * @param dir the build output
 * @returns keys, unsorted
 */
export async function listKeys(dir: string): Promise<string[]> {
  // The same walk as the sync's, so the sitemap lists exactly the pages that are published.
  return (await listSiteFiles(dir)).map((f) => f.key);
}

/**
 * Generates the SEO files for the site in `distDir` and writes them there before the sync,
 * logging any warning.
 *
 * @param distDir the build output
 * @param seo the settings
 * @param target environment and origin
 * @param logger where warnings go
 * @returns what was generated
 *
 * @example
 * ```ts
 * const dist = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dist}/index.html`, "<h1>hi</h1>");
 * const site = { isProduction: true, origin: "https://example.com" };
 * await writeSeoFiles(dist, { robots: "auto", sitemap: "auto" }, site);
 * await Deno.remove(dist, { recursive: true });
 * ```
 */
export async function writeSeoFiles(
  distDir: string,
  seo: SeoSettings,
  target: SeoTarget,
  logger?: Logger,
): Promise<SeoFiles> {
  const out = generateSeoFiles(await listKeys(distDir), seo, target);
  for (const [key, bytes] of out.files) await Deno.writeFile(`${distDir}/${key}`, bytes);
  for (const warning of out.warnings) logger?.warn(warning);
  return out;
}
