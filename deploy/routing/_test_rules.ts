/**
 * Test fixtures shared by the routing tests: one rule of every kind, and the build they run
 * against.
 *
 * @module
 */
import type { RedirectRule } from "../config/route_rules.ts";

/** A redirect rule (301 and no `force` unless given). */
export const rule = (from: string, to: string, status = 301, force = false): RedirectRule => ({
  from,
  to,
  status: status as RedirectRule["status"],
  force,
});

/** Every rule kind: splat, placeholders with a query, 200, 404, a shadowed page, force, a URL. */
export const RULE_KINDS: readonly RedirectRule[] = [
  rule("/blog/*", "/posts/:splat"),
  rule("/news/:year/:slug", "/archive/:year/:slug?from=news", 302),
  rule("/app/*", "/app/index.html", 200),
  rule("/docs/*", "/docs/404.html", 404),
  rule("/about", "/team", 308),
  rule("/", "/en/", 302, true),
  rule("/gone", "https://example.com/moved/", 307),
];

/** The build's file keys (`about/index.html` shadows the `/about` rule). */
export const RULE_KEYS: readonly string[] = [
  "index.html",
  "about/index.html",
  "app/index.html",
  "docs/intro.html",
];
