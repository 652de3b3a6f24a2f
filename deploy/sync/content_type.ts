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
 * The `Content-Type` for a site key, from the full `mime` table by the key's extension (none:
 * `application/octet-stream`, except the known `.well-known/` files), with `charset=utf-8` on
 * every text type (all `text/*`, JSON, XML, SVG, web manifests) since static-site output is UTF-8.
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
  const type = WELL_KNOWN.get(key.replace(/^\/+/, "")) ?? typeByExtension(key);
  return isText(type) ? `${type}; charset=utf-8` : type;
}

/**
 * Extension-less files at protocol-fixed paths whose clients check the type: Apple's universal
 * links file must be JSON, and an AT Protocol handle's DID file is plain text.
 */
const WELL_KNOWN = new Map([
  [".well-known/apple-app-site-association", "application/json"],
  [".well-known/atproto-did", "text/plain"],
]);

/**
 * Looks the type up by the extension only: `mime` takes a bare word for an extension, so a file
 * named `html` or `json` would otherwise be served as HTML or JSON. A dotfile (`.nojekyll`) has
 * no extension either.
 */
function typeByExtension(key: string): string {
  const base = key.slice(key.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  if (dot <= 0 || dot === base.length - 1) return FALLBACK_CONTENT_TYPE;
  return mime.getType(base.slice(dot + 1)) ?? FALLBACK_CONTENT_TYPE;
}

function isText(type: string): boolean {
  return type.startsWith("text/") || TEXT_LIKE.has(type) || type.endsWith("+json") ||
    type.endsWith("+xml");
}
