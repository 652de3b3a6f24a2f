/**
 * Where things live in the site bucket: the live site under `site/` (the distribution's
 * origin path), the environment state under `state/`, deploy locks under `locks/`. Other
 * prefixes (builds, history) belong to the deploy pipeline; `delete` empties only `site/`.
 *
 * In the preview bucket, each preview's files sit under `previews/<id>/site/` and its record
 * at `previews/<id>/preview.json`, so destroying a preview is deleting `previews/<id>/`; the
 * stack's state (`state/preview.json`) and the build records sit beside them as in any
 * environment's bucket.
 *
 * @module
 */
import { PREVIEW_ENV } from "../config/names.ts";

/** Key prefix of the live site; the distribution's origin path is `/site`. */
export const SITE_PREFIX = "site/";

/** The CloudFront origin path matching {@linkcode SITE_PREFIX}. */
export const SITE_ORIGIN_PATH = "/site";

/** Key prefix of environment state files. */
export const STATE_PREFIX = "state/";

/**
 * The state object's key: `state/<env>.json`.
 *
 * @param env environment name
 * @returns the S3 key
 */
export function stateKey(env: string): string {
  return `${STATE_PREFIX}${env}.json`;
}

/**
 * The key prefix a stack serves (pure): `site/` for an environment, `previews/` (every
 * preview's `previews/<id>/site/`) for the preview stack. The bucket policy lets the
 * distribution read only there; the builder role writes only there.
 *
 * @param preview whether the stack is the preview stack
 * @returns the prefix
 */
export function servedPrefix(preview: boolean): string {
  return preview ? PREVIEWS_PREFIX : SITE_PREFIX;
}

/** Key prefix of deploy locks. */
export const LOCK_PREFIX = "locks/";

/**
 * The deploy lock of a publishing scope: `locks/<scope>.json`. The scope is the environment
 * for `deploy` (`production`), and names the preview for a preview deploy, so previews of one
 * environment lock one another only per preview id.
 *
 * @param scope environment name, or a preview's scope
 * @returns the S3 key
 */
export function lockKey(scope: string): string {
  return `${LOCK_PREFIX}${scope}.json`;
}

/**
 * The deploy lock of one preview: `locks/preview-<id>.json`. A preview deploy holds it while it
 * publishes; `preview destroy` and `preview prune` take it too, so neither deletes a preview
 * half-way through its deploy (which would then write its record over missing files).
 *
 * @param id the preview id
 * @returns the S3 key
 */
export function previewLockKey(id: string): string {
  return lockKey(`${PREVIEW_ENV}-${id}`);
}

/**
 * Where a scope's owed invalidation is kept: `state/<scope>.invalidation.json`, beside (not
 * inside) `state/<env>.json`, which `bootstrap` rewrites whole from its resource nodes.
 *
 * @param scope environment name, or a preview's scope
 * @returns the S3 key
 */
export function owedInvalidationKey(scope: string): string {
  return `${STATE_PREFIX}${scope}.invalidation.json`;
}

/**
 * Where a scope's kept files (old files lingering for open tabs, `retention.previousDays`) are
 * listed: `state/<scope>.kept.json`, beside `state/<env>.json` for the same reason as the owed
 * invalidation.
 *
 * @param scope environment name
 * @returns the S3 key
 */
export function keptFilesKey(scope: string): string {
  return `${STATE_PREFIX}${scope}.kept.json`;
}

/**
 * Where a MicroVM build reads the kept list from: `build/<id>.kept.json`, a copy the CLI puts
 * beside the build's source, because the builder role reads `build/*` but not `state/*`.
 *
 * @param buildId the build id
 * @returns the S3 key
 */
export function keptFilesCopyKey(buildId: string): string {
  return `build/${buildId}.kept.json`;
}

/**
 * Which build is live: `state/<env>.live.json`, written by every deploy and rollback of the live
 * site, so `history` marks it even when a rollback restored an older build.
 *
 * @param env environment name
 * @returns the S3 key
 */
export function liveBuildKey(env: string): string {
  return `${STATE_PREFIX}${env}.live.json`;
}

/** The core's own `state/<scope>.<suffix>.json` files, which no plugin may take as its namespace. */
export const CORE_STATE_SUFFIXES: readonly string[] = ["invalidation", "kept", "live"];

/**
 * A plugin's scoped state key: `state/<env>.<namespace>.json`, beside the environment's own.
 *
 * @param env environment name
 * @param namespace the plugin's namespace (`analytics`)
 * @returns the S3 key
 */
export function scopedStateKey(env: string, namespace: string): string {
  return `${STATE_PREFIX}${env}.${namespace}.json`;
}

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

/** Key prefix of everything kept for restoring builds. */
export const OUTPUTS_PREFIX = "outputs/";

/**
 * Where the MicroVM builder keeps its build cache in the site bucket: `cache/deps/<key>.tar.gz`
 * (dependencies, by the install's key) and `cache/framework/<key>.tar.gz` (framework caches, per
 * site and branch). The builder role may read and write it; a lifecycle rule expires an entry
 * 30 days after its last use.
 */
export const BUILD_CACHE_PREFIX = "cache/";

/**
 * The key of one build cache archive in the site bucket.
 *
 * @param kind `deps` or `framework`
 * @param key the entry's key (`npm-3f2a…`, `framework-1c9e…`)
 * @returns `cache/<kind>/<key>.tar.gz`
 */
export function buildCacheObjectKey(kind: "deps" | "framework", key: string): string {
  return `${BUILD_CACHE_PREFIX}${kind}/${key}.tar.gz`;
}

/** Key prefix of the content-addressed objects; the lifecycle rule expires these. */
export const OUTPUT_OBJECTS_PREFIX = `${OUTPUTS_PREFIX}objects/`;

/**
 * How long a stored object lives after its last write (pure): twice `retention.buildsDays`.
 * A deploy rewrites each object it uses once that object is older than `buildsDays`, so at the
 * deploy every object of the build is at most `buildsDays` old and outlives the build's
 * retention by the lifecycle rule's own margin.
 *
 * @param buildsDays config `retention.buildsDays`
 * @returns days
 */
export function outputExpiryDays(buildsDays: number): number {
  return 2 * buildsDays;
}
