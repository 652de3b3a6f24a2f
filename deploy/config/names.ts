/**
 * Every resource name derived from the configuration, in one pure module: the bucket, log
 * groups, deploy roles, builder image and log streams, CloudFront functions, secret names,
 * previews and tags. Other modules never build these strings themselves (a plugin's own
 * defaults are templates in its section's schema).
 *
 * @module
 */

/** Length limit of an S3 bucket name. */
export const MAX_BUCKET_NAME = 63;

/**
 * Stands in for the AWS account id when it is not known yet (load time without
 * `AWS_ACCOUNT_ID`): account ids are always 12 digits, so length checks stay exact.
 */
export const ACCOUNT_ID_PLACEHOLDER = "000000000000";

/** CloudFront, ACM and the CDN access-log group always live here. */
export const CDN_REGION = "us-east-1";

/** Log-group path under which the builder's log group is created. */
export const MICROVM_LOG_PREFIX = "/aws/microvms/";

/**
 * The site bucket `<env>-<siteName>-<accountId>`.
 *
 * @param env environment name
 * @param siteName the `siteName` key
 * @param accountId 12-digit AWS account id
 * @returns the bucket name (may exceed 63 characters; validation rejects that)
 */
export function bucketName(env: string, siteName: string, accountId: string): string {
  return `${env}-${siteName}-${accountId}`;
}

/**
 * The builder log group: `/aws/microvms/<env>-<siteName>-builder`, in the site's region.
 *
 * @param env environment name
 * @param siteName the `siteName` key
 * @returns the log group name
 */
export function builderLogGroup(env: string, siteName: string): string {
  return `${MICROVM_LOG_PREFIX}${env}-${siteName}-builder`;
}

/**
 * The CDN access-log group `/<siteName>/<env>/cloudfront`, always in us-east-1.
 *
 * @param env environment name
 * @param siteName the `siteName` key
 * @returns the log group name
 */
export function cdnLogGroup(env: string, siteName: string): string {
  return `/${siteName}/${env}/cloudfront`;
}

/**
 * A log group's ARN as IAM policies and log delivery name it (no trailing `:*`).
 *
 * @param region the log group's region
 * @param accountId the AWS account
 * @param name the log group name
 * @returns `arn:aws:logs:<region>:<account>:log-group:<name>`
 */
export function logGroupArn(region: string, accountId: string, name: string): string {
  return `arn:aws:logs:${region}:${accountId}:log-group:${name}`;
}

/**
 * The name of the CDN access-log delivery's CloudWatch Logs source and destination:
 * `<env>-<siteName>-cdn` (both are named per account; at most 54 characters, as `env` and
 * `siteName` fit a 63-character bucket name with the account id, within the 60 allowed).
 *
 * @param env environment name
 * @param siteName the `siteName` key
 * @returns the delivery source and destination name
 */
export function cdnLogDeliveryName(env: string, siteName: string): string {
  return `${env}-${siteName}-cdn`;
}

/**
 * The deploy role `bootstrap` creates when `githubRepo` is set: `<env>-<siteName>-gh`.
 *
 * @param env environment name
 * @param siteName the `siteName` key
 * @returns the IAM role name
 */
export function deployRoleName(env: string, siteName: string): string {
  return `${env}-${siteName}-gh`;
}

/**
 * The MicroVM builder's IAM role `<env>-<siteName>-builder`, created by `bootstrap`: the role
 * the service builds the builder image with and the builder MicroVM runs as.
 *
 * @param env environment name
 * @param siteName the `siteName` key
 * @returns the IAM role name
 */
export function builderRoleName(env: string, siteName: string): string {
  return `${env}-${siteName}-builder`;
}

/**
 * The MicroVM builder image `<env>-<siteName>-builder`, created by the first MicroVM build and
 * deleted by `destroy`.
 *
 * @param env environment name
 * @param siteName the `siteName` key
 * @returns the MicroVM image name
 */
export function builderImageName(env: string, siteName: string): string {
  return `${env}-${siteName}-builder`;
}

/**
 * The log stream a build attempt writes to: `build-<id>-<first 8 of the token>`, so a rebuild
 * of the same id (a rollback, a dirty tree) gets a stream of its own.
 *
 * @param buildId the build id
 * @param token the launch token
 * @returns the stream name
 */
export function buildLogStream(buildId: string, token: string): string {
  return `build-${buildId}-${token.replace(/[^\w]/g, "").slice(0, 8)}`;
}

/**
 * The CloudFront Function that rewrites directory URLs of an environment's site:
 * `<env>-<siteName>-rewrite`.
 *
 * @param env environment name
 * @param siteName the `siteName` key
 * @returns the function name (at most 49 characters, as `<env>-<siteName>` fits a bucket name)
 */
export function siteRewriteFunctionName(env: string, siteName: string): string {
  return `${env}-${siteName}-rewrite`;
}

/**
 * The site's viewer-response function (per-path headers, 404 rules): `<env>-<siteName>-headers`.
 *
 * @param env environment name
 * @param siteName the `siteName` key
 * @returns the function name
 */
export function siteHeadersFunctionName(env: string, siteName: string): string {
  return `${env}-${siteName}-headers`;
}

/**
 * The site's response headers policy (site-wide headers): `<env>-<siteName>-headers`.
 *
 * @param env environment name
 * @param siteName the `siteName` key
 * @returns the policy name
 */
export function siteHeadersPolicyName(env: string, siteName: string): string {
  return `${env}-${siteName}-headers`;
}

/**
 * The site's CloudFront KeyValueStore for rules past the function size limit:
 * `<env>-<siteName>-rules` (64 characters of `[a-zA-Z0-9-_]` at most, as the bucket name's
 * limits keep `<env>-<siteName>`).
 *
 * @param env environment name
 * @param siteName the `siteName` key
 * @returns the store name
 */
export function siteRulesStoreName(env: string, siteName: string): string {
  return `${env}-${siteName}-rules`;
}

/**
 * The role `preview bootstrap` creates: `preview-<siteName>-gh`.
 *
 * @param siteName the `siteName` key
 * @returns the IAM role name
 */
export function previewRoleName(siteName: string): string {
  return `preview-${siteName}-gh`;
}

/**
 * Default `pds.secretName`: `<siteName>/atproto`.
 *
 * @param siteName the `siteName` key
 * @returns the secret name
 */
export function pdsSecretName(siteName: string): string {
  return `${siteName}/atproto`;
}

/**
 * The characters AWS accepts in a tag value (letters, digits, spaces and `_ . : / = + - @`),
 * as a regular-expression character class body for the `u` flag.
 */
export const TAG_VALUE_CHARS = "\\p{L}\\p{Z}\\p{N}_.:/=+\\-@";

/** Longest tag value AWS accepts, in characters. */
export const MAX_TAG_VALUE = 256;

/**
 * Makes a fallback `app` tag value (a domain or a repository directory name, which nobody
 * chose as a tag) acceptable to AWS: every other character becomes `-`, and it is cut to 256
 * characters. An explicit `app` is validated instead, never rewritten.
 *
 * @param value the fallback
 * @returns a valid tag value, or `""` when nothing is left
 *
 * @example
 * ```ts
 * tagSafe("my blog (2024)!"); // "my blog -2024--"
 * ```
 */
export function tagSafe(value: string): string {
  const replaced = value.replace(new RegExp(`[^${TAG_VALUE_CHARS}]`, "gu"), "-");
  return [...replaced].slice(0, MAX_TAG_VALUE).join("");
}

/** Tags put on every created resource and, as object tags, on every site file. */
export interface ResourceTags {
  /** The `app` key (falls back to the domain, then the repo directory name). */
  readonly app: string;
  /** The environment name. */
  readonly environment: string;
}

/**
 * The `app` and `environment` tags.
 *
 * @param app the resolved `app` value
 * @param env environment name
 * @returns the tags
 */
export function resourceTags(app: string, env: string): ResourceTags {
  return { app, environment: env };
}

/** Every derived name for one site environment, as `deploy config` prints it. */
export interface SiteNames {
  /** `<env>-<siteName>-<accountId>`; `null` until the account id is known. */
  readonly bucket: string | null;
  /** Builder log group in the site's region. */
  readonly builderLogGroup: string;
  /** CDN access-log group (in {@linkcode CDN_REGION}). */
  readonly cdnLogGroup: string;
  /** Region of the CDN resources and their log group. */
  readonly cdnRegion: string;
  /** Deploy role for this environment. */
  readonly deployRole: string;
  /** The MicroVM builder's role (build and execution role of the builder image). */
  readonly builderRole: string;
  /** The MicroVM builder image. */
  readonly builderImage: string;
  /** Deploy role of the preview stack. */
  readonly previewRole: string;
  /** Default secret name of the `pds` section. */
  readonly pdsSecretName: string;
  /** Resource tags. */
  readonly tags: ResourceTags;
}

/**
 * All derived names for a site environment.
 *
 * @param site the resolved `siteName` and `app`
 * @param env environment name
 * @param accountId the AWS account id when known
 * @returns every derived name
 *
 * @example
 * ```ts
 * siteNames({ siteName: "blog", app: "blog.example.com" }, "production", "123456789012").bucket;
 * // "production-blog-123456789012"
 * ```
 */
export function siteNames(
  site: { readonly siteName: string; readonly app: string },
  env: string,
  accountId?: string,
): SiteNames {
  const { siteName } = site;
  return {
    bucket: accountId === undefined ? null : bucketName(env, siteName, accountId),
    builderLogGroup: builderLogGroup(env, siteName),
    cdnLogGroup: cdnLogGroup(env, siteName),
    cdnRegion: CDN_REGION,
    deployRole: deployRoleName(env, siteName),
    builderRole: builderRoleName(env, siteName),
    builderImage: builderImageName(env, siteName),
    previewRole: previewRoleName(siteName),
    pdsSecretName: pdsSecretName(siteName),
    tags: resourceTags(site.app, env),
  };
}

// Previews: the stack is the environment `preview` (so its bucket, log groups, builder and
// state file follow the usual `<env>-<siteName>` names above); what only previews have is here.

/** The environment every preview command uses (`config/preview.jsonc`, `state/preview.json`). */
export const PREVIEW_ENV = "preview";

/** What a preview id may look like: lower-case letters, digits and inner hyphens. */
export const PREVIEW_ID_PATTERN: RegExp = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

/** A preview id is one DNS label, which holds holds at most 63 characters. */
export const MAX_PREVIEW_ID = 63;

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
