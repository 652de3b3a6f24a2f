/**
 * The search-engine policy: what `robots.txt` and `sitemap.xml` a deploy publishes, decided
 * purely from the `seo` settings, the environment and the site's origin.
 *
 * @module
 */

/** `seo.robots`. */
export type RobotsMode = "auto" | "index" | "noindex" | "off";
/** `seo.sitemap`. */
export type SitemapMode = "auto" | "on" | "off";

/** The resolved `seo` settings. */
export interface SeoSettings {
  /** `seo.robots`, default `auto`. */
  readonly robots: RobotsMode;
  /** `seo.robotsContent`: a body published verbatim unless `robots` is `off`. */
  readonly robotsContent?: string | undefined;
  /** `seo.sitemap`, default `auto`. */
  readonly sitemap: SitemapMode;
}

/** Where the deploy goes, as far as search engines care. */
export interface SeoTarget {
  /** True only for the production environment and never for a preview deploy. */
  readonly isProduction: boolean;
  /** `https://<custom domain>` or `https://<cdn domain>`; undefined when neither is known. */
  readonly origin: string | undefined;
}

/** The indexable robots body (before an optional `Sitemap:` line). */
export const ROBOTS_ALLOW = "User-agent: *\nAllow: /\n";
/** The non-indexable robots body. */
export const ROBOTS_DISALLOW = "User-agent: *\nDisallow: /\n";

/**
 * Whether a sitemap is built: `on` always, `auto` in production only, `off` never. (A sitemap
 * also needs an origin; see {@linkcode sitemapUrl}.)
 *
 * @param mode `seo.sitemap`
 * @param isProduction production and not a preview
 */
export function sitemapWanted(mode: SitemapMode, isProduction: boolean): boolean {
  return mode === "on" || (mode === "auto" && isProduction);
}

/**
 * The sitemap's absolute URL, or undefined when no sitemap is published (not wanted, or no
 * origin to make absolute URLs with).
 *
 * @param seo the settings
 * @param target environment and origin
 */
export function sitemapUrl(seo: SeoSettings, target: SeoTarget): string | undefined {
  if (!sitemapWanted(seo.sitemap, target.isProduction) || target.origin === undefined) {
    return undefined;
  }
  return `${trimOrigin(target.origin)}/sitemap.xml`;
}

/**
 * The `robots.txt` body, or undefined to leave the site's own file alone (`off`).
 *
 * `robotsContent` wins whenever robots are managed. Otherwise `index` (and `auto` in
 * production) allows everything and points at the sitemap when one is published; `noindex`
 * (and `auto` anywhere else, previews included) disallows everything.
 *
 * @param seo the settings
 * @param target environment and origin
 * @returns the file body or undefined
 *
 * @example
 * ```ts
 * robotsTxt({ robots: "auto", sitemap: "auto" }, { isProduction: false, origin: undefined }); // Disallow all
 * ```
 */
export function robotsTxt(seo: SeoSettings, target: SeoTarget): string | undefined {
  if (seo.robots === "off") return undefined;
  if (seo.robotsContent !== undefined) return seo.robotsContent;
  const index = seo.robots === "index" || (seo.robots === "auto" && target.isProduction);
  if (!index) return ROBOTS_DISALLOW;
  const sitemap = sitemapUrl(seo, target);
  return sitemap === undefined ? ROBOTS_ALLOW : `${ROBOTS_ALLOW}\nSitemap: ${sitemap}\n`;
}

/** Error pages are served for missing paths, so they are never listed. */
const NOT_PAGES = /^(404|500)(\.html|\/index\.html)$/;

/**
 * The public URL of an HTML page key: `index.html` → `/`, `a/index.html` → `/a/`, anything
 * else its own path; undefined for non-HTML files and error pages (`404.html`, `500.html`).
 *
 * @param key site-relative key
 * @returns the URL path, percent-encoded, or undefined
 */
export function pagePath(key: string): string | undefined {
  if (!/\.html$/i.test(key) || NOT_PAGES.test(key)) return undefined;
  const encoded = key.split("/").map(encodeURIComponent).join("/");
  if (key === "index.html") return "/";
  if (key.endsWith("/index.html")) return `/${encoded.slice(0, -"index.html".length)}`;
  return `/${encoded}`;
}

/**
 * The `sitemap.xml` body for the site's pages, with absolute URLs on `origin`, sorted.
 *
 * @param origin e.g. `https://example.com`
 * @param keys every site-relative key (non-pages are skipped)
 * @returns the XML document
 *
 * @example
 * ```ts
 * sitemapXml("https://example.com", ["index.html", "a/index.html", "app.js"]);
 * ```
 */
export function sitemapXml(origin: string, keys: readonly string[]): string {
  const base = trimOrigin(origin);
  const urls = keys.map(pagePath).filter((p): p is string => p !== undefined).sort()
    .map((p) => `  <url><loc>${escapeXml(base + p)}</loc></url>\n`).join("");
  return `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}</urlset>\n`;
}

/**
 * The site origin for absolute URLs: the custom domain, else the CDN domain, as `https://`.
 *
 * @param domain the custom domain (`--domain` or `domain`)
 * @param cdnDomain the distribution's domain, e.g. `d111.cloudfront.net`
 * @returns the origin or undefined when neither is known
 */
export function siteOrigin(
  domain: string | undefined,
  cdnDomain: string | undefined,
): string | undefined {
  const host = domain || cdnDomain;
  if (!host) return undefined;
  return /^https?:\/\//.test(host) ? trimOrigin(host) : `https://${host.replace(/\/+$/, "")}`;
}

/**
 * The URL that serves the site now, for summaries: the custom domain once the distribution
 * carries it as an alias, else the CDN domain. After `bootstrap` requested a certificate that
 * is not issued yet, the domain does not serve (CloudFront answers it only as an alias), so a
 * summary must not send the user there. Absolute URLs inside the site (sitemap, robots) keep
 * {@linkcode siteOrigin}: they name the site's canonical address.
 *
 * @param domain the custom domain (`--domain` or `domain`)
 * @param cdnDomain the distribution's domain, e.g. `d111.cloudfront.net`
 * @param aliasAttached whether bootstrap attached the domain (the state's `aliasAttached`);
 *   `undefined` when the state does not say, which trusts the domain
 * @returns the origin, or undefined when neither domain is known
 */
export function servingOrigin(
  domain: string | undefined,
  cdnDomain: string | undefined,
  aliasAttached: boolean | undefined,
): string | undefined {
  return siteOrigin(aliasAttached === false && cdnDomain ? undefined : domain, cdnDomain);
}

function trimOrigin(origin: string): string {
  return origin.replace(/\/+$/, "");
}

function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;").replace(/'/g, "&apos;");
}
