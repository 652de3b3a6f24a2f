/**
 * Which CDN paths a deploy invalidates: a pure decision over the changed and deleted keys.
 *
 * @module
 */

/** The one path that invalidates a whole distribution. */
export const INVALIDATE_ALL = "/*";

/**
 * The CDN paths a visitor could have cached for one site key (relative to the site root, no
 * leading slash): the object's own path; for a directory index `a/index.html` also `/a/` and
 * `/a`; for the root object also `/`.
 *
 * Only what CloudFront asks to be encoded is percent-encoded (see {@linkcode encodeSegment}),
 * and `*` too, so a key named `a*` never acts as a wildcard.
 *
 * @param key site-relative object key, e.g. `blog/index.html`
 * @param defaultRootObject the object served for the bare root (`index.html` by default)
 * @returns the paths, each starting with `/`
 *
 * @example
 * ```ts
 * cdnPathsFor("a/index.html"); // ["/a/index.html", "/a/", "/a"]
 * ```
 */
export function cdnPathsFor(key: string, defaultRootObject = "index.html"): string[] {
  const clean = key.replace(/^\/+/, "");
  const own = encodePath(clean);
  if (clean === defaultRootObject) return [own, "/"];
  const slash = clean.lastIndexOf("/");
  const base = clean.slice(slash + 1);
  if (base === "index.html" && slash > 0) {
    const dir = encodePath(clean.slice(0, slash));
    return [own, `${dir}/`, dir];
  }
  if (base === "index.html" && slash < 0) return [own, "/"];
  return [own];
}

/**
 * The paths one deploy invalidates: every path of every changed or deleted key, deduplicated
 * and sorted; exactly `["/*"]` when there are more than `maxPaths` of them; `[]` when nothing
 * changed (an identical redeploy sends no invalidation at all).
 *
 * @param keys site-relative keys that were uploaded (changed or new) or deleted
 * @param maxPaths the `invalidationMaxPaths` setting (default 1000)
 * @param defaultRootObject the object served for the bare root
 * @returns the CDN paths to invalidate
 *
 * @example
 * ```ts
 * planInvalidation(["a.css", "b.css"], 1); // ["/*"]
 * planInvalidation([], 1000); // []
 * ```
 */
export function planInvalidation(
  keys: readonly string[],
  maxPaths: number,
  defaultRootObject = "index.html",
): string[] {
  const paths = [...new Set(keys.flatMap((k) => cdnPathsFor(k, defaultRootObject)))].sort();
  return paths.length > maxPaths ? [INVALIDATE_ALL] : paths;
}

function encodePath(key: string): string {
  return "/" + key.split("/").map(encodeSegment).join("/");
}

/**
 * Characters percent-encoded besides controls, space and non-ASCII: RFC 1738's unsafe set, `?`
 * (it would start a query string) and `*` (CloudFront's wildcard).
 */
const ENCODED = new Set([...'<>"#%{}|\\^~[]`?*']);

/**
 * Percent-encodes exactly what CloudFront asks to be encoded in an invalidation path: control
 * characters, space, non-ASCII (as UTF-8 bytes), the RFC 1738 unsafe characters and `?`. It
 * says to encode nothing else, or the path no longer matches the cached object's, so
 * `+ $ , ; : @ = & ! ' ( )` stay literal. `*` is encoded too: CloudFront reads a trailing `*`
 * as a wildcard, and an object literally named `a*` must invalidate only itself.
 *
 * @param segment one path segment (no `/`)
 * @returns the encoded segment
 */
export function encodeSegment(segment: string): string {
  let out = "";
  for (const char of segment) {
    const code = char.codePointAt(0)!;
    if (code > 0x20 && code < 0x7f && !ENCODED.has(char)) out += char;
    else {
      for (const byte of new TextEncoder().encode(char)) {
        out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
      }
    }
  }
  return out;
}
