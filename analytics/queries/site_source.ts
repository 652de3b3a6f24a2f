/**
 * Opening the site's page-view table for a command: the table bucket, namespace and table the
 * configuration names (us-east-1), attached with the credentials of the CLI's own AWS chain.
 *
 * @module
 */
import { S3TablesClient } from "@aws-sdk/client-s3tables";
import { aws, type Environ, type PluginHost, type PluginSite } from "@org/deploy/plugin";
import { ANALYTICS_REGION, analyticsNames } from "../pipeline/names.ts";
import { duckdbEndpoints } from "./endpoints.ts";
import { openS3TablesSource, type S3TablesSourceOptions } from "./s3_tables_source.ts";
import type { PageViewSource } from "./source.ts";
import type { AnalyticsConfig } from "../section.ts";

/**
 * Attaches the site's table.
 *
 * @param site the opened site (its client factory resolves the credentials)
 * @param config the resolved `analytics` section
 * @param environ the CLI's environment: its endpoint overrides reach DuckDB too (`endpoints.ts`)
 * @param options whether a missing DuckDB extension may be downloaded (default yes)
 * @returns the source; `using` closes it
 * @throws {DeployError} `aws_credentials_missing`, `query_engine_unavailable`,
 *   `aws_request_failed`
 */
export async function openSiteSource(
  site: PluginSite,
  config: AnalyticsConfig,
  environ: Environ,
  options: Omit<S3TablesSourceOptions, "endpoints"> = {},
): Promise<PageViewSource> {
  const names = analyticsNames(site, config);
  // The S3 Tables client carries the CLI's credential chain (profile, SSO, environment).
  const client = site.client(S3TablesClient, "S3TABLES", ANALYTICS_REGION);
  // No credentials is `aws_credentials_missing` with its hint, as for every other command.
  const credentials = await aws(
    { resource: `table bucket ${names.tableBucket}`, action: "s3tables:GetTable" },
    () => client.config.credentials(),
  );
  return openS3TablesSource(
    {
      tableBucketArn: names.tableBucketArn,
      region: ANALYTICS_REGION,
      namespace: names.namespace,
      table: names.table,
    },
    credentials,
    { ...options, endpoints: duckdbEndpoints(environ) },
  );
}

/**
 * Opens the site for AWS and attaches its table, as one source whose disposal closes both:
 * what a command that only reads the table (`dashboard`, `export`) needs.
 *
 * @param host the plugin host (opens the site)
 * @param config the resolved `analytics` section
 * @param environ the CLI's environment (endpoint overrides)
 * @returns the source; `using` closes DuckDB and the site
 * @throws {DeployError} as {@linkcode openSiteSource}, and the site's own opening errors
 */
export async function openSiteTable(
  host: PluginHost,
  config: AnalyticsConfig,
  environ: Environ,
): Promise<PageViewSource> {
  const opened = await host.openSite();
  try {
    const source = await openSiteSource(opened, config, environ);
    return {
      ...source,
      [Symbol.dispose]() {
        source[Symbol.dispose]();
        opened[Symbol.dispose]();
      },
    };
  } catch (err) {
    opened[Symbol.dispose]();
    throw err;
  }
}
