/**
 * Where things live in the site bucket: the live site under `site/` (the distribution's
 * origin path), the environment state under `state/`, deploy locks under `locks/`. Other prefixes (builds, history) belong
 * to the deploy pipeline; `delete` empties only `site/`.
 *
 * @module
 */
import { PREVIEWS_PREFIX } from "../preview/layout.ts";
import { PREVIEW_ENV } from "../preview/names.ts";

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

/** The core's own `state/<scope>.<suffix>.json` files, which no plugin may take as its namespace. */
export const CORE_STATE_SUFFIXES: readonly string[] = ["invalidation"];

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
