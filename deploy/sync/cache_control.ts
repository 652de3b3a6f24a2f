/**
 * The `Cache-Control` each site file is served with.
 *
 * @module
 */

/** HTML and un-fingerprinted files: caches keep them but must ask again before each use. */
export const REVALIDATE = "public, max-age=0, must-revalidate";

/** Fingerprinted assets: their name changes with their content, so they never change. */
export const IMMUTABLE = "public, max-age=31536000, immutable";

/** Build-tool output folders whose files carry a content hash in their name. */
const HASHED_DIRS = /(^|\/)(_astro|assets|_next\/static|_app\/immutable|static\/(js|css|media))\//;

/**
 * Whether a key's file name carries a content hash, as bundlers write them:
 * `app.3f2a1b9c.js`, `index-4f3a2b1c.css`, `index.BcD3fG7h.css` (Vite/Astro base64url).
 *
 * The hash is the last `.`/`-`-separated part before the extension: 8 to 64 characters of
 * `[A-Za-z0-9_]`, with a digit in it; or, inside a known build-output folder (`_astro/`,
 * `assets/`, `_next/static/`, …), mixed case. A plain word such as `bootstrap-standalone.js`
 * is never taken for a hash, so it keeps revalidating.
 *
 * @param key site-relative key
 * @returns true when the file may be cached for a year
 */
export function isFingerprinted(key: string): boolean {
  const base = key.slice(key.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  if (dot <= 0) return false;
  const stem = base.slice(0, dot);
  const sep = Math.max(stem.lastIndexOf("."), stem.lastIndexOf("-"));
  if (sep <= 0) return false;
  const hash = stem.slice(sep + 1);
  if (!/^[A-Za-z0-9_]{8,64}$/.test(hash)) return false;
  if (/[0-9]/.test(hash)) return true;
  return HASHED_DIRS.test(key) && /[A-Z]/.test(hash) && /[a-z]/.test(hash);
}

/**
 * The `Cache-Control` for a site key: HTML (and anything not fingerprinted) revalidates on
 * every use, so a deploy is visible at once; fingerprinted assets are cached for a year and
 * marked `immutable`.
 *
 * @param key site-relative key
 * @returns {@linkcode REVALIDATE} or {@linkcode IMMUTABLE}
 *
 * @example
 * ```ts
 * cacheControlFor("_astro/index.BcD3fG7h.css"); // "public, max-age=31536000, immutable"
 * ```
 */
export function cacheControlFor(key: string): string {
  if (/\.html?$/i.test(key)) return REVALIDATE;
  return isFingerprinted(key) ? IMMUTABLE : REVALIDATE;
}
