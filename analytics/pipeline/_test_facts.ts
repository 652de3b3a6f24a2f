/**
 * The pipeline facts the tests use: the `production` environment of the site `blog` in account
 * `123456789012`, with an `analytics` section resolved by the real resolver.
 *
 * @module
 */
import type { AnalyticsFacts } from "./facts.ts";
import { analyticsNames } from "./names.ts";
import { type AnalyticsConfig, resolveAnalyticsConfig } from "../section.ts";

/** The test site. */
export const TEST_SITE = { env: "production", siteName: "blog", accountId: "123456789012" };

/**
 * The resolved `analytics` section.
 *
 * @param raw the section as written
 * @param siteName the site name (for derived defaults)
 * @returns the config
 */
export function testConfig(raw: unknown = {}, siteName = TEST_SITE.siteName): AnalyticsConfig {
  const r = resolveAnalyticsConfig(raw, { siteName, env: TEST_SITE.env });
  if (!("config" in r)) throw new Error(JSON.stringify(r.errors));
  return r.config;
}

/**
 * The facts of the test site.
 *
 * @param raw the `analytics` section as written
 * @returns the facts
 */
export function testFacts(raw: unknown = {}): AnalyticsFacts {
  const config = testConfig(raw);
  return {
    ...TEST_SITE,
    config,
    names: analyticsNames(TEST_SITE, config),
    tags: { app: "blog", environment: "production" },
  };
}
