/**
 * The `analytics` section, checked only when an `analytics` command runs (unknown keys,
 * including unknown `dashboard` keys, are rejected then).
 *
 * @module
 */
import type { ConfigIssue } from "@org/shared";
import { checkField, checkObject } from "./check.ts";
import { analyticsSaltSecretName, analyticsTableBucket } from "./names.ts";
import { ANALYTICS_SCHEMA } from "./schema.ts";

/** The resolved `analytics` section. */
export interface AnalyticsConfig {
  /** Default `<env>-<siteName>-analytics`. */
  tableBucket: string;
  namespace: string;
  table: string;
  bots: "flag" | "filter";
  /** Default `<siteName>/<env>/analytics-salt`. */
  saltSecretName: string;
  dashboard: { port: number };
}

/**
 * Checks the raw `analytics` section and fills its defaults; an absent section or `{}` gives
 * all defaults.
 *
 * @param raw the section as written (`undefined` when absent)
 * @param site the resolved `siteName` and the environment, for derived defaults
 * @returns the resolved section or every problem found (paths prefixed `analytics.`)
 *
 * @example
 * ```ts
 * resolveAnalyticsConfig(undefined, { siteName: "blog", env: "production" });
 * // { config: { tableBucket: "production-blog-analytics", namespace: "web", ... } }
 * ```
 */
export function resolveAnalyticsConfig(
  raw: unknown,
  site: { readonly siteName: string; readonly env: string },
): { config: AnalyticsConfig } | { errors: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const resolved = checkObject(ANALYTICS_SCHEMA, raw ?? {}, "analytics", issues);
  if (resolved === undefined || issues.length > 0) return { errors: issues };
  const fields = ANALYTICS_SCHEMA.fields;
  // Derived defaults obey the same rules as written values (a long site name can make the
  // default table bucket too long).
  resolved.tableBucket ??= checkField(
    fields.tableBucket!,
    analyticsTableBucket(site.env, site.siteName),
    "analytics.tableBucket",
    issues,
  );
  resolved.saltSecretName ??= checkField(
    fields.saltSecretName!,
    analyticsSaltSecretName(site.env, site.siteName),
    "analytics.saltSecretName",
    issues,
  );
  if (issues.length > 0) return { errors: issues };
  return { config: resolved as unknown as AnalyticsConfig };
}
