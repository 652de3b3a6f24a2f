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
  return factsFor("production", raw);
}

function factsFor(env: string, raw: Record<string, unknown>): SiteFacts {
  const result = resolveSiteConfig({ siteName: "blog", ...raw }, {
    env,
    repoDir: "/src/blog",
    accountId: ACCOUNT,
  });
  if (!("config" in result)) throw new Error(JSON.stringify(result.errors));
  const config: SiteConfig = result.config;
  return {
    env,
    accountId: ACCOUNT,
    config,
    bucket: `${env}-blog-${ACCOUNT}`,
    builderLogGroup: `/aws/microvms/${env}-blog-builder`,
    cdnLogGroup: `/blog/${env}/cloudfront`,
    deployRole: `${env}-blog-gh`,
    tags: { app: config.app, environment: env },
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
  const base = factsFor("preview", {
    domain: "preview.example.com",
    githubRepo: "acme/blog",
    ...raw,
  });
  return { ...base, preview: { domain: base.config.domain! } };
}
