/**
 * Names of the preview stack and of one preview, derived in one pure module. The stack is the
 * environment `preview` (so its bucket, log groups, builder and state file follow the usual
 * `<env>-<siteName>` names from `config/names.ts`); what only previews have is named here.
 *
 * @module
 */

/** The environment every preview command uses (`config/preview.jsonc`, `state/preview.json`). */
export const PREVIEW_ENV = "preview";

/**
 * The CloudFront Function that routes a preview host to its files: `preview-<siteName>-router`.
 *
 * @param siteName the `siteName` key
 * @returns the function name (at most 55 characters, as `siteName` fits a bucket name)
 */
export function previewRouterName(siteName: string): string {
  return `${PREVIEW_ENV}-${siteName}-router`;
}

/**
 * The `environment` tag value of one preview's files: `preview-<id>`.
 *
 * @param id the preview id
 * @returns the tag value
 */
export function previewEnvironmentTag(id: string): string {
  return `${PREVIEW_ENV}-${id}`;
}

/**
 * Object tags of one preview's files: `app` plus `environment=preview-<id>`.
 *
 * @param app the resolved `app` value
 * @param id the preview id
 * @returns the tags
 */
export function previewObjectTags(
  app: string,
  id: string,
): { readonly app: string; readonly environment: string } {
  return { app, environment: previewEnvironmentTag(id) };
}

/**
 * The preview base domain as written (`--domain` or `domain`), normalised: lower case, no
 * trailing dot.
 *
 * @param domain the base domain, e.g. `Preview.Example.com.`
 * @returns e.g. `preview.example.com`
 */
export function normalizeDomain(domain: string): string {
  return domain.trim().toLowerCase().replace(/\.+$/, "");
}

/**
 * The wildcard name the stack serves: `*.<domain>` (the certificate's domain, the
 * distribution's alias and the DNS records' name).
 *
 * @param domain the preview base domain
 * @returns `*.<domain>`
 */
export function previewWildcard(domain: string): string {
  return `*.${normalizeDomain(domain)}`;
}

/**
 * One preview's host name: `<id>.<domain>`.
 *
 * @param id the preview id
 * @param domain the preview base domain
 * @returns the host
 */
export function previewHost(id: string, domain: string): string {
  return `${id}.${normalizeDomain(domain)}`;
}

/**
 * One preview's URL: `https://<id>.<domain>` (no trailing slash, as CI comments show it).
 *
 * @param id the preview id
 * @param domain the preview base domain
 * @returns the URL
 *
 * @example
 * ```ts
 * previewUrl("pr-42", "preview.example.com"); // "https://pr-42.preview.example.com"
 * ```
 */
export function previewUrl(id: string, domain: string): string {
  return `https://${previewHost(id, domain)}`;
}
