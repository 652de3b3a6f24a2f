/**
 * Where previews live in the preview bucket: each preview's files under
 * `previews/<id>/site/` and its record `previews/<id>/preview.json`, so destroying a preview
 * is deleting `previews/<id>/`. The stack's state (`state/preview.json`) and the build records
 * (`builds/`, `build/`) sit beside them as in any environment's bucket.
 *
 * @module
 */

/** Key prefix of every preview. */
export const PREVIEWS_PREFIX = "previews/";

/** The folder inside `previews/<id>/` that holds the preview's site files. */
export const PREVIEW_SITE_FOLDER = "site";

/**
 * Everything of one preview: `previews/<id>/`.
 *
 * @param id the preview id
 * @returns the key prefix
 */
export function previewPrefix(id: string): string {
  return `${PREVIEWS_PREFIX}${id}/`;
}

/**
 * One preview's site files (the deploy job's target prefix): `previews/<id>/site/`. The router
 * function maps `https://<id>.<domain>/<path>` onto these keys.
 *
 * @param id the preview id
 * @returns the key prefix
 */
export function previewSitePrefix(id: string): string {
  return `${previewPrefix(id)}${PREVIEW_SITE_FOLDER}/`;
}

/**
 * One preview's record (id, revision, last deploy): `previews/<id>/preview.json`.
 *
 * @param id the preview id
 * @returns the key
 */
export function previewRecordKey(id: string): string {
  return `${previewPrefix(id)}preview.json`;
}

/**
 * The preview id a key belongs to (pure).
 *
 * @param key an object key or a listed common prefix
 * @returns the id, or `undefined` for keys outside `previews/<id>/`
 *
 * @example
 * ```ts
 * previewIdOfKey("previews/pr-42/site/index.html"); // "pr-42"
 * ```
 */
export function previewIdOfKey(key: string): string | undefined {
  if (!key.startsWith(PREVIEWS_PREFIX)) return undefined;
  const rest = key.slice(PREVIEWS_PREFIX.length);
  const slash = rest.indexOf("/");
  return slash > 0 ? rest.slice(0, slash) : undefined;
}
