/**
 * The `Cache-Control` each site file is served with.
 *
 * @module
 */

/** HTML and un-fingerprinted files: caches keep them but must ask again before each use. */
export const REVALIDATE = "public, max-age=0, must-revalidate";

/** Fingerprinted assets: their name changes with their content, so they never change. */
export const IMMUTABLE = "public, max-age=31536000, immutable";

/**
 * Folders only a build tool writes, every file named with its content hash: there a mixed-case
 * base64url hash (Astro's `Layout.DiwrgTda.css`; about one in four has no digit) is enough.
 */
const TOOL_DIRS = /(^|\/)(_astro|_next\/static|_app\/immutable)\//;

/**
 * Folders where bundlers put hashed output but sites also keep their own files (`assets/` is
 * also a common `public/` folder): a base64url hash there needs upper case, lower case and a digit.
 */
const SHARED_DIRS = /(^|\/)(assets|static\/(js|css|media))\//;

/**
 * Whether a key's file name carries a content hash, as bundlers write them:
 * `main.3f2a1b9c.js` (webpack hex), `assets/index-B7x9Qk2L.js` (Vite base64url),
 * `_astro/index.Bx8sK2mQ.css` (Astro).
 *
 * The hash is the last `.`/`-`-separated part before the extension, 8 to 64 characters:
 * - lower-case hex with both a letter and a digit, anywhere (`3f2a1b9c`);
 * - `[A-Za-z0-9_]` with upper and lower case, inside a tool-only folder (`_astro/`,
 *   `_next/static/`, `_app/immutable/`), and with a digit as well inside `assets/` or
 *   `static/js|css|media/`.
 *
 * All-digit parts are dates or counters, never hashes (`report-20240115.pdf`), and names such as
 * `logo-v2final1.png` or `photo-IMG12345.jpg` are not hex, so they keep revalidating: a file
 * wrongly marked immutable would stay stale in browsers for a year.
 *
 * @param key site-relative key
 * @returns true when the file may be cached for a year
 */
export function isFingerprinted(key: string): boolean {
  const base = key.slice(key.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  if (dot <= 0) return false;
  // Create React App names code-split chunks `787.8f3c2a1b.chunk.js`.
  const stem = base.slice(0, dot).replace(/\.chunk$/, "");
  const sep = Math.max(stem.lastIndexOf("."), stem.lastIndexOf("-"));
  if (sep <= 0) return false;
  const hash = stem.slice(sep + 1);
  if (!/^[A-Za-z0-9_]{8,64}$/.test(hash) || /^[0-9]+$/.test(hash)) return false;
  const digit = /[0-9]/.test(hash);
  if (/^[0-9a-f]+$/.test(hash) && /[a-f]/.test(hash) && digit) return true;
  const mixedCase = /[A-Z]/.test(hash) && /[a-z]/.test(hash);
  if (TOOL_DIRS.test(key)) return mixedCase;
  return SHARED_DIRS.test(key) && mixedCase && digit;
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
