/**
 * Every name the analytics pipeline derives, in one place (pure). All resources live in
 * us-east-1 whatever the site's `region`: CloudFront delivers access logs to Firehose only
 * there.
 *
 * @module
 */
import { CDN_REGION, cdnLogDeliveryName } from "@org/deploy/plugin";
import type { AnalyticsConfig } from "../section.ts";

/** The pipeline's region (CloudFront's log deliveries to Firehose exist only in us-east-1). */
export const ANALYTICS_REGION: string = CDN_REGION;

/** The account-wide Glue catalog federating S3 Tables (adopted when present, never deleted). */
export const S3_TABLES_CATALOG = "s3tablescatalog";

/** Retention of the two diagnostic log groups (fixed by the spec). */
export const DIAGNOSTIC_LOG_DAYS = 365;

/** The names of one environment's pipeline. */
export interface AnalyticsNames {
  /** S3 table bucket (`analytics.tableBucket`). */
  readonly tableBucket: string;
  /** Its ARN. */
  readonly tableBucketArn: string;
  /** Namespace (`analytics.namespace`). */
  readonly namespace: string;
  /** Table (`analytics.table`). */
  readonly table: string;
  /** The Glue catalog ARN Firehose writes through: `…:catalog/s3tablescatalog/<tableBucket>`. */
  readonly catalogArn: string;
  /** The salt secret (`analytics.saltSecretName`). */
  readonly saltSecret: string;
  /** The transform Lambda: `<env>-<siteName>-analytics-transform`. */
  readonly transformFunction: string;
  /** Its role (same name). */
  readonly transformRole: string;
  /** Its log group, where Lambda writes by default: `/aws/lambda/<function>`. */
  readonly transformLogGroup: string;
  /** The Firehose stream: `<env>-<siteName>-analytics`. */
  readonly stream: string;
  /** Its role: `<env>-<siteName>-analytics-firehose`. */
  readonly streamRole: string;
  /** Its log group: `/aws/kinesisfirehose/<stream>`. */
  readonly streamLogGroup: string;
  /** The error bucket: `<env>-<siteName>-analytics-errors-<accountId>`. */
  readonly errorBucket: string;
  /** The log delivery destination for the stream (same name as the stream). */
  readonly logDestination: string;
  /** The site's CloudFront log delivery source, which the pipeline's delivery hangs off. */
  readonly logSource: string;
}

/**
 * Derives the names (pure).
 *
 * @param site environment, `siteName` and account id
 * @param config the resolved `analytics` section
 * @returns every name
 *
 * @example
 * ```ts
 * import type { AnalyticsConfig } from "../section.ts";
 *
 * const streamOf = (config: AnalyticsConfig) =>
 *   analyticsNames({ env: "production", siteName: "blog", accountId: "123456789012" }, config)
 *     .stream; // "production-blog-analytics"
 * ```
 */
export function analyticsNames(
  site: { readonly env: string; readonly siteName: string; readonly accountId: string },
  config: AnalyticsConfig,
): AnalyticsNames {
  const base = `${site.env}-${site.siteName}-analytics`;
  const stream = base;
  const transform = `${base}-transform`;
  const region = ANALYTICS_REGION;
  return {
    tableBucket: config.tableBucket,
    tableBucketArn: `arn:aws:s3tables:${region}:${site.accountId}:bucket/${config.tableBucket}`,
    namespace: config.namespace,
    table: config.table,
    catalogArn:
      `arn:aws:glue:${region}:${site.accountId}:catalog/${S3_TABLES_CATALOG}/${config.tableBucket}`,
    saltSecret: config.saltSecretName,
    transformFunction: transform,
    transformRole: transform,
    transformLogGroup: `/aws/lambda/${transform}`,
    stream,
    streamRole: `${base}-firehose`,
    streamLogGroup: `/aws/kinesisfirehose/${stream}`,
    errorBucket: `${base}-errors-${site.accountId}`,
    logDestination: stream,
    logSource: cdnLogDeliveryName(site.env, site.siteName),
  };
}

/**
 * The names that break an AWS limit (pure): S3 bucket names stop at 63 characters, IAM role and
 * Lambda function names at 64.
 *
 * @param names the derived names
 * @returns one line per name too long
 */
export function nameProblems(names: AnalyticsNames): string[] {
  const limits: [string, string, number][] = [
    ["error bucket", names.errorBucket, 63],
    ["transform function", names.transformFunction, 64],
    ["stream role", names.streamRole, 64],
    ["stream", names.stream, 64],
  ];
  return limits.filter(([, name, max]) => name.length > max)
    .map(([what, name, max]) => `${what} ${name} is ${name.length} characters, over ${max}`);
}
