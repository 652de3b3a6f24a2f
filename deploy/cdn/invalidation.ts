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
 * Characters CloudFront would read as a wildcard or that are unsafe in a URL are
 * percent-encoded, so a key named `*.txt` never invalidates more than itself.
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

function encodeSegment(segment: string): string {
  // encodeURIComponent leaves RFC 3986 "unreserved-ish" marks alone; `*` is a CloudFront
  // wildcard and `'()!` are unsafe in RFC 1738, which CloudFront's docs ask us to encode.
  return encodeURIComponent(segment).replace(
    /[*'()!]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
