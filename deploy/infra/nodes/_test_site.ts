/**
 * The site the resource nodes' tests describe: one account, its bucket and distribution, and
 * {@linkcode facts} for a configuration.
 *
 * @module
 */
import { resolveSiteConfig, type SiteConfig } from "../../config/site_config.ts";
import type { SiteFacts } from "../resource.ts";

/** The test account id. */
export const ACCOUNT = "123456789012";

/** The site bucket of the production environment. */
export const BUCKET = `production-blog-${ACCOUNT}`;

/** The distribution's ARN. */
export const DIST_ARN = `arn:aws:cloudfront::${ACCOUNT}:distribution/E1`;

/**
 * The facts for a production site `blog` with `raw` config keys on top.
 *
 * @param raw config keys
 * @returns the facts
 */
export function facts(raw: Record<string, unknown>): SiteFacts {
  const result = resolveSiteConfig({ siteName: "blog", ...raw }, {
    env: "production",
    repoDir: "/src/blog",
    accountId: ACCOUNT,
  });
  if (!("config" in result)) throw new Error(JSON.stringify(result.errors));
  const config: SiteConfig = result.config;
  return {
    env: "production",
    accountId: ACCOUNT,
    config,
    bucket: BUCKET,
    builderLogGroup: "/aws/microvms/production-blog-builder",
    cdnLogGroup: "/blog/production/cloudfront",
    deployRole: "production-blog-gh",
    tags: { app: config.app, environment: "production" },
  };
}

/** The preview stack's bucket. */
export const PREVIEW_BUCKET = `preview-blog-${ACCOUNT}`;

/**
 * The facts for the preview stack of site `blog` (environment `preview`, base domain
 * `preview.example.com`) with `raw` config keys on top.
 *
 * @param raw config keys
 * @returns the facts
 */
export function previewFacts(raw: Record<string, unknown> = {}): SiteFacts {
  const result = resolveSiteConfig({
    siteName: "blog",
    domain: "preview.example.com",
    githubRepo: "acme/blog",
    ...raw,
  }, { env: "preview", repoDir: "/src/blog", accountId: ACCOUNT });
  if (!("config" in result)) throw new Error(JSON.stringify(result.errors));
  const config: SiteConfig = result.config;
  return {
    env: "preview",
    accountId: ACCOUNT,
    config,
    bucket: PREVIEW_BUCKET,
    builderLogGroup: "/aws/microvms/preview-blog-builder",
    cdnLogGroup: "/blog/preview/cloudfront",
    deployRole: "preview-blog-gh",
    tags: { app: config.app, environment: "preview" },
    preview: { domain: config.domain! },
  };
}
