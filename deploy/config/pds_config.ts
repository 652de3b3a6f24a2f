/**
 * The `pds` section, checked only when a `pds` command runs so that a broken section never
 * blocks `deploy` and the other built-in commands.
 *
 * @module
 */
import type { ConfigIssue } from "@org/shared";
import { checkObject } from "./check.ts";
import { pdsSecretName } from "./names.ts";
import { PDS_SCHEMA } from "./schema.ts";

/** The resolved `pds` section. */
export interface PdsConfig {
  /** Publication display name (non-blank). */
  name: string;
  description?: string;
  /** https: URL that resolves handles to DIDs. */
  handleResolver: string;
  /** Secret holding the OAuth client key and session; default `<siteName>/atproto`. */
  secretName: string;
  /** Announcing new posts on Bluesky. */
  announce: {
    enabled: boolean;
    /** Post text with `{title}`, `{description}`, `{url}`; at most 300 graphemes. */
    template: string;
  };
  /** Whether production deploys refresh `paths.commentsJson`. */
  comments: boolean;
  /** https: (or loopback http:) URL of the AppView read for comments. */
  appview: string;
}

/**
 * Checks the raw `pds` section and fills its defaults.
 *
 * @param raw the section as written (`undefined` when absent)
 * @param site the resolved `siteName`, for the default secret name
 * @returns `{ config: null }` when the section is absent (publishing is inert), the resolved
 *   section, or every problem found (paths prefixed `pds.`)
 *
 * @example
 * ```ts
 * resolvePdsConfig({ name: "My blog" }, { siteName: "blog" });
 * // { config: { name: "My blog", handleResolver: "https://public.api.bsky.app", secretName: "blog/atproto" } }
 * ```
 */
export function resolvePdsConfig(
  raw: unknown,
  site: { readonly siteName: string },
): { config: PdsConfig | null } | { errors: ConfigIssue[] } {
  if (raw === undefined) return { config: null };
  const issues: ConfigIssue[] = [];
  const resolved = checkObject(PDS_SCHEMA, raw, "pds", issues);
  if (resolved === undefined || issues.length > 0) return { errors: issues };
  resolved.secretName ??= pdsSecretName(site.siteName);
  return { config: resolved as unknown as PdsConfig };
}
