import assert from "node:assert/strict";
import {
  pagePath,
  ROBOTS_ALLOW,
  ROBOTS_DISALLOW,
  robotsTxt,
  type SeoSettings,
  servingOrigin,
  sitemapUrl,
  sitemapXml,
  siteOrigin,
} from "./policy.ts";
import { generateSeoFiles } from "./files.ts";

const prod = { isProduction: true, origin: "https://example.com" };
const staging = { isProduction: false, origin: "https://example.com" };
const seo = (s: Partial<SeoSettings> = {}): SeoSettings => ({
  robots: "auto",
  sitemap: "auto",
  ...s,
});

Deno.test("robots auto: production allows all and points at the sitemap", () => {
  assert.equal(
    robotsTxt(seo(), prod),
    `${ROBOTS_ALLOW}\nSitemap: https://example.com/sitemap.xml\n`,
  );
});

Deno.test("robots auto: production without a sitemap allows all with no Sitemap line", () => {
  assert.equal(robotsTxt(seo({ sitemap: "off" }), prod), ROBOTS_ALLOW);
});

Deno.test("robots auto: every other environment and previews disallow all", () => {
  assert.equal(robotsTxt(seo(), staging), ROBOTS_DISALLOW);
  assert.equal(robotsTxt(seo({ sitemap: "on" }), staging), ROBOTS_DISALLOW);
});

Deno.test("robots index and noindex are forced whatever the environment", () => {
  assert.equal(robotsTxt(seo({ robots: "index", sitemap: "off" }), staging), ROBOTS_ALLOW);
  assert.equal(
    robotsTxt(seo({ robots: "index", sitemap: "on" }), staging),
    `${ROBOTS_ALLOW}\nSitemap: https://example.com/sitemap.xml\n`,
  );
  assert.equal(robotsTxt(seo({ robots: "noindex" }), prod), ROBOTS_DISALLOW);
});

Deno.test("robots off leaves the file alone, even with robotsContent", () => {
  assert.equal(robotsTxt(seo({ robots: "off" }), prod), undefined);
  assert.equal(robotsTxt(seo({ robots: "off", robotsContent: "x" }), prod), undefined);
});

Deno.test("robotsContent is published verbatim for auto, index and noindex", () => {
  for (const robots of ["auto", "index", "noindex"] as const) {
    assert.equal(
      robotsTxt(seo({ robots, robotsContent: "User-agent: x\n" }), staging),
      "User-agent: x\n",
    );
  }
});

Deno.test("sitemap auto is on in production only; on and off are forced", () => {
  assert.equal(sitemapUrl(seo(), prod), "https://example.com/sitemap.xml");
  assert.equal(sitemapUrl(seo(), staging), undefined);
  assert.equal(sitemapUrl(seo({ sitemap: "on" }), staging), "https://example.com/sitemap.xml");
  assert.equal(sitemapUrl(seo({ sitemap: "off" }), prod), undefined);
});

Deno.test("sitemap lists HTML pages with absolute URLs, skipping assets and error pages", () => {
  assert.equal(
    sitemapXml("https://example.com/", [
      "index.html",
      "blog/post one/index.html",
      "about.html",
      "404.html",
      "app.js",
      "a&b.html",
    ]),
    `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/</loc></url>
  <url><loc>https://example.com/a%26b.html</loc></url>
  <url><loc>https://example.com/about.html</loc></url>
  <url><loc>https://example.com/blog/post%20one/</loc></url>
</urlset>
`,
  );
});

Deno.test("pagePath() maps directory indexes to their slash path", () => {
  assert.equal(pagePath("index.html"), "/");
  assert.equal(pagePath("a/index.html"), "/a/");
  assert.equal(pagePath("404/index.html"), undefined);
  assert.equal(pagePath("a.css"), undefined);
});

Deno.test("siteOrigin() prefers the custom domain, then the CDN domain", () => {
  assert.equal(siteOrigin("example.com", "d1.cloudfront.net"), "https://example.com");
  assert.equal(siteOrigin(undefined, "d1.cloudfront.net"), "https://d1.cloudfront.net");
  assert.equal(siteOrigin(undefined, undefined), undefined);
});

Deno.test("servingOrigin() names the custom domain only once it is attached", () => {
  assert.equal(
    servingOrigin("example.com", "d1.cloudfront.net", false),
    "https://d1.cloudfront.net",
  );
  assert.equal(servingOrigin("example.com", "d1.cloudfront.net", true), "https://example.com");
  // A state that does not say (hand-written) trusts the domain; no CDN domain leaves only it.
  assert.equal(servingOrigin("example.com", "d1.cloudfront.net", undefined), "https://example.com");
  assert.equal(servingOrigin("example.com", undefined, false), "https://example.com");
  assert.equal(servingOrigin(undefined, "d1.cloudfront.net", false), "https://d1.cloudfront.net");
});

Deno.test("generateSeoFiles() warns and skips the sitemap when no origin resolves", () => {
  const out = generateSeoFiles(["index.html"], seo(), { isProduction: true, origin: undefined });
  assert.deepEqual([...out.files.keys()], ["robots.txt"]);
  assert.equal(new TextDecoder().decode(out.files.get("robots.txt")), ROBOTS_ALLOW);
  assert.equal(out.warnings.length, 1);
  assert.match(out.warnings[0]!, /sitemap skipped/);
});

Deno.test("generateSeoFiles() writes nothing for robots off and sitemap off", () => {
  const out = generateSeoFiles(["index.html"], seo({ robots: "off", sitemap: "off" }), prod);
  assert.equal(out.files.size, 0);
  assert.deepEqual(out.warnings, []);
});
