/**
 * The site configuration as the file may say it ({@linkcode SiteConfigInput}) and as the
 * program uses it ({@linkcode SiteConfig}), and the one pure function between them.
 *
 * @module
 */
import { basename } from "node:path";
import type { ConfigIssue } from "@org/shared";
import { checkField, checkObject, isPlainObject } from "./check.ts";
import { ACCOUNT_ID_PLACEHOLDER, bucketName, MAX_BUCKET_NAME, tagSafe } from "./names.ts";
import { SITE_NAME_PATTERN, SITE_SCHEMA } from "./schema.ts";
import { headerIssues, type HeaderRule, redirectIssues, type RedirectRule } from "./route_rules.ts";

/** Allowed builder memory sizes, in GB. */
export type MicrovmMemory = 0.5 | 1 | 2 | 4 | 8;
/** `build.builder` values: where `deploy` builds unless `--builder` says otherwise. */
export type BuilderKind = "microvm" | "local";
/** `seo.robots` values. */
export type RobotsPolicy = "auto" | "index" | "noindex" | "off";
/** `seo.sitemap` values. */
export type SitemapPolicy = "auto" | "on" | "off";

/** What a configuration file may contain (every key optional; values unchecked). */
export interface SiteConfigInput {
  $schema?: string;
  siteName?: string;
  region?: string;
  domain?: string;
  app?: string;
  githubRepo?: string;
  build?: {
    builder?: BuilderKind;
    env?: Record<string, string>;
    secrets?: Record<string, string>;
  };
  microvm?: {
    memory?: number;
    maxDurationSeconds?: number;
    idle?: {
      autoResumeEnabled?: boolean;
      maxIdleDurationSeconds?: number;
      suspendedDurationSeconds?: number;
    };
  };
  retention?: {
    microvmDays?: number;
    cloudfrontDays?: number;
    previousDays?: number;
    buildsDays?: number;
  };
  sourceIgnore?: string[];
  sourceInclude?: string[];
  invalidationMaxPaths?: number;
  defaultRootObject?: string;
  spa?: boolean;
  redirects?: { from?: string; to?: string; status?: number; force?: boolean }[];
  headers?: { for?: string; values?: Record<string, string> }[];
  seo?: { robots?: RobotsPolicy; robotsContent?: string; sitemap?: SitemapPolicy };
  previews?: { password?: string };
  paths?: {
    app?: string;
    dist?: string;
    publicDir?: string;
    content?: string;
    atprotoJson?: string;
    commentsJson?: string;
  };
  pds?: unknown;
  /** A plugin's section (`analytics`), carried unchecked; its plugin checks it. */
  [pluginKey: string]: unknown;
}

/** The builder's idle policy, passed unchanged to every launch. */
export interface MicrovmIdle {
  autoResumeEnabled: boolean;
  maxIdleDurationSeconds: number;
  suspendedDurationSeconds: number;
}

/** The site configuration with every default filled and every load-time rule checked. */
export interface SiteConfig {
  siteName: string;
  region: string;
  /** The custom domain (`--domain` beats the key); absent when serving from the CDN domain. */
  domain?: string;
  /** The `app` tag: the key, else the domain, else the repository directory name. */
  app: string;
  githubRepo?: string;
  /** `local`: every build runs on this machine and no MicroVM resource is wanted. */
  /**
   * Where the site is built (`builder`), and the install and build steps' environment: `env`
   * as written (`${VAR}` filled at deploy time, `build_settings/build_env.ts`), `secrets` the
   * Secrets Manager names the builder reads.
   */
  build: {
    builder: BuilderKind;
    env?: Record<string, string>;
    secrets?: Record<string, string>;
  };
  microvm: { memory: MicrovmMemory; maxDurationSeconds: number; idle: MicrovmIdle };
  retention: {
    microvmDays: number;
    cloudfrontDays: number;
    previousDays: number;
    buildsDays: number;
  };
  sourceIgnore: string[];
  sourceInclude: string[];
  invalidationMaxPaths: number;
  defaultRootObject: string;
  spa: boolean;
  /** Redirect and rewrite rules, in order; `_redirects`' rules follow them at deploy time. */
  redirects: RedirectRule[];
  /** Header rules, in order; `_headers`' rules follow them at deploy time. */
  headers: HeaderRule[];
  seo: { robots: RobotsPolicy; robotsContent?: string; sitemap: SitemapPolicy };
  /** Pull-request previews: `password` puts HTTP Basic on every preview (`preview/auth.ts`). */
  previews: { password?: string };
  paths: {
    app: string;
    dist: string;
    publicDir: string;
    content: string;
    atprotoJson: string;
    commentsJson: string;
  };
  /** The raw `pds` section; checked by `resolvePdsConfig` when a `pds` command runs. */
  pds?: unknown;
  /** A plugin's raw section (`analytics`); checked with its schema when its commands run. */
  [pluginKey: string]: unknown;
}

/** What {@linkcode resolveSiteConfig} needs besides the file's contents. */
export interface ResolveSiteOptions {
  /** Environment name (`production` unless given). */
  env: string;
  /** Repository root; its directory name is the last fallback for `app`. */
  repoDir: string;
  /** The AWS account id when known; otherwise a 12-digit placeholder sizes the bucket name. */
  accountId?: string;
  /** `--domain` from the command line; beats the `domain` key. */
  domainFlag?: string;
  /**
   * The installed plugins' section keys besides the first-party ones the schema knows: carried
   * unchecked like them, so a plugin needs no change to the core to own a key.
   */
  pluginKeys?: readonly string[];
}

/** Either the resolved configuration or every problem found. */
export type SiteConfigResult = { config: SiteConfig } | { errors: ConfigIssue[] };

/** Environment names end up in bucket and role names, so they follow the `siteName` rule. */
const ENV_PATTERN = new RegExp(SITE_NAME_PATTERN.regex);

/**
 * Merges a configuration file over the defaults and checks every load-time rule, returning
 * every problem at once, each naming its key path and rule. The `pds` section and the plugins'
 * sections (`analytics`, and those of `pluginKeys`) are carried through unchecked.
 *
 * @param raw the parsed file
 * @param options environment, repository root, account id and `--domain`
 * @returns `{ config }` or `{ errors }`
 *
 * @example
 * ```ts
 * const result = resolveSiteConfig({ siteName: "blog" }, { env: "production", repoDir: "/src/blog" });
 * if ("config" in result) result.config.microvm.memory; // 4
 * ```
 */
export function resolveSiteConfig(raw: unknown, options: ResolveSiteOptions): SiteConfigResult {
  const issues: ConfigIssue[] = [];
  const { env } = options;
  if (!ENV_PATTERN.test(env)) {
    issues.push({
      path: "",
      message: `environment name "${env}" must ${SITE_NAME_PATTERN.rule}`,
    });
  }
  const pluginKeys = (options.pluginKeys ?? []).filter((k) =>
    !Object.hasOwn(SITE_SCHEMA.fields, k)
  );
  const resolved = checkObject(SITE_SCHEMA, raw, "", issues, ["$schema", ...pluginKeys]);
  if (resolved === undefined) return { errors: issues };
  for (const key of pluginKeys) {
    // Carried as written, like the schema's deferred sections: its plugin's commands check it.
    if (Object.hasOwn(raw as object, key)) resolved[key] = (raw as Record<string, unknown>)[key];
  }

  if (options.domainFlag !== undefined) {
    const flag = checkField(SITE_SCHEMA.fields.domain!, options.domainFlag, "--domain", issues);
    if (flag !== undefined) resolved.domain = flag;
  }
  const ownHosts = typeof resolved.domain === "string" ? [resolved.domain.toLowerCase()] : [];
  issues.push(
    ...redirectIssues(objectItems(raw, "redirects"), (i) => `redirects[${i}]`, ownHosts),
  );
  issues.push(...headerIssues(objectItems(raw, "headers"), (i) => `headers[${i}]`));
  if (resolved.app === undefined && !Object.hasOwn(raw as object, "app")) {
    // Nobody chose the fallback as a tag value, so it is made acceptable rather than rejected.
    const fallback = typeof resolved.domain === "string"
      ? resolved.domain
      : basename(options.repoDir);
    resolved.app = tagSafe(fallback) || "site";
  }
  if (typeof resolved.siteName === "string" && ENV_PATTERN.test(env)) {
    const known = options.accountId !== undefined;
    const bucket = bucketName(env, resolved.siteName, options.accountId ?? ACCOUNT_ID_PLACEHOLDER);
    if (bucket.length > MAX_BUCKET_NAME) {
      issues.push({
        path: "siteName",
        message: `derived bucket name "${bucket}" is ${bucket.length} characters, over the ` +
          `${MAX_BUCKET_NAME} allowed${known ? "" : " (counting a 12-digit account id)"}; ` +
          `shorten the environment or site name`,
      });
    }
  }
  if (issues.length > 0) return { errors: issues };
  // Every field was checked against SITE_SCHEMA, whose shape SiteConfig mirrors (tested).
  return { config: resolved as unknown as SiteConfig };
}

/** The items of a list key as written, each an object (others are the schema's to report). */
function objectItems(raw: unknown, key: string): Record<string, unknown>[] {
  const list = (raw as Record<string, unknown>)[key];
  if (!Array.isArray(list)) return [];
  return list.map((item) => isPlainObject(item) ? item : {});
}
