/**
 * The `Content-Type` each site file is served with.
 *
 * @module
 */
import mime from "mime";

/** What S3 serves when the extension is unknown: browsers download rather than guess. */
export const FALLBACK_CONTENT_TYPE = "application/octet-stream";

/** Types outside `text/*` that are text too, so they get `charset=utf-8`. */
const TEXT_LIKE = new Set([
  "application/javascript",
  "application/json",
  "application/ld+json",
  "application/manifest+json",
  "application/xml",
  "application/xhtml+xml",
  "application/rss+xml",
  "application/atom+xml",
  "application/geo+json",
  "application/graphql",
  "image/svg+xml",
]);

/**
 * The `Content-Type` for a site key, from the full `mime` table, with `charset=utf-8` on every
 * text type (all `text/*`, JSON, XML, SVG, web manifests) since static-site output is UTF-8.
 *
 * @param key site-relative key or file name
 * @returns e.g. `text/html; charset=utf-8`, `image/png`, or `application/octet-stream`
 *
 * @example
 * ```ts
 * contentTypeFor("a/index.html"); // "text/html; charset=utf-8"
 * ```
 */
export function contentTypeFor(key: string): string {
  const base = key.slice(key.lastIndexOf("/") + 1);
  const type = mime.getType(base) ?? FALLBACK_CONTENT_TYPE;
  return isText(type) ? `${type}; charset=utf-8` : type;
}

function isText(type: string): boolean {
  return type.startsWith("text/") || TEXT_LIKE.has(type) || type.endsWith("+json") ||
    type.endsWith("+xml");
}
