/**
 * The analytics plugin's configuration section and error codes, as data: what the core reads
 * without loading the plugin (`deno task schema` copies it into the core's
 * `deploy/config/first_party_sections.json`, so `deploy config` and the JSON Schema cover it).
 * This module imports nothing of the plugin's runtime.
 *
 * @module
 */
import {
  type ConfigIssue,
  type ObjectField,
  type PluginErrorCode,
  pluginErrorCodes,
  type PluginSection,
  resolvePluginSection,
  SECRET_NAME_PATTERN,
} from "@org/deploy/plugin/section";

/** The plugin's namespace, which scopes its commands and its state file. */
export const ANALYTICS_NAMESPACE = "analytics";

/** The error codes the analytics plugin reports. */
export const ANALYTICS_ERROR_CODES: {
  readonly queryEngineUnavailable: PluginErrorCode;
  readonly portInUse: PluginErrorCode;
  readonly unknownQuery: PluginErrorCode;
} = pluginErrorCodes({
  /** The analytics query engine (DuckDB or one of its extensions) cannot run here. */
  queryEngineUnavailable: "query_engine_unavailable",
  /** A local server's port is taken by another program. */
  portInUse: "port_in_use",
  /** `analytics export --query` names no named query (the dashboard API's 404 says the same). */
  unknownQuery: "unknown_query",
});

/** The `analytics` section of the site configuration. Checked when an `analytics` command runs. */
export const ANALYTICS_SCHEMA: ObjectField = {
  kind: "object",
  optional: true,
  description: "Analytics plugin settings; an absent block or {} uses the defaults.",
  fields: {
    tableBucket: {
      kind: "string",
      pattern: {
        regex: "^[a-z0-9-]{3,63}$",
        rule: "be 3 to 63 lowercase letters, digits or dashes",
      },
      derivedDefault: "<env>-<siteName>-analytics",
      description: "Table bucket holding the page-view table.",
    },
    namespace: {
      kind: "string",
      default: "web",
      pattern: { regex: "^[a-z0-9_]+$", rule: "be lowercase letters, digits or underscores" },
      description: "Table namespace.",
    },
    table: {
      kind: "string",
      default: "page_views",
      pattern: { regex: "^[a-z0-9_]+$", rule: "be lowercase letters, digits or underscores" },
      description: "Table name.",
    },
    bots: {
      kind: "enum",
      values: ["flag", "filter"],
      default: "flag",
      description: "flag: bots included in queries; filter: excluded by default. Both retain rows.",
    },
    saltSecretName: {
      kind: "string",
      pattern: SECRET_NAME_PATTERN,
      derivedDefault: "<siteName>/<env>/analytics-salt",
      description: "Secret holding the visitor-hash salt.",
    },
    dashboard: {
      kind: "object",
      description: "The local dashboard.",
      fields: {
        port: {
          kind: "number",
          integer: true,
          minimum: 1024,
          maximum: 65535,
          default: 4317,
          description: "Loopback port of the dashboard server.",
        },
      },
    },
  },
};

/** The analytics plugin's section. */
export const ANALYTICS_SECTION: PluginSection = {
  namespace: ANALYTICS_NAMESPACE,
  summary: "page analytics from the CloudFront logs into an Iceberg table you own (us-east-1)",
  configKey: "analytics",
  schema: ANALYTICS_SCHEMA,
  names: {
    tableBucket: "tableBucket",
    namespace: "namespace",
    table: "table",
    bots: "bots",
    saltSecretName: "saltSecretName",
    dashboardPort: "dashboard.port",
  },
  errorCodes: Object.values(ANALYTICS_ERROR_CODES),
};

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
  return resolvePluginSection(ANALYTICS_SECTION, raw, site) as
    | { config: AnalyticsConfig }
    | { errors: ConfigIssue[] };
}
