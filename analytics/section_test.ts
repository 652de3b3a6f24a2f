import assert from "node:assert/strict";
import { resolveAnalyticsConfig } from "./section.ts";

const SITE = { siteName: "blog", env: "staging" };
const DEFAULTS = {
  tableBucket: "staging-blog-analytics",
  namespace: "web",
  table: "page_views",
  bots: "flag",
  saltSecretName: "blog/staging/analytics-salt",
  dashboard: { port: 4317 },
};

Deno.test("resolveAnalyticsConfig(): an absent block or {} gives every default", () => {
  assert.deepEqual(resolveAnalyticsConfig(undefined, SITE), { config: DEFAULTS });
  assert.deepEqual(resolveAnalyticsConfig({}, SITE), { config: DEFAULTS });
});

Deno.test("resolveAnalyticsConfig() keeps given values and merges dashboard", () => {
  const result = resolveAnalyticsConfig({ bots: "filter", dashboard: {} }, SITE);
  assert.deepEqual(result, { config: { ...DEFAULTS, bots: "filter" } });
});

const INVALID: [unknown, string][] = [
  [
    { tableBucket: "ab" },
    'analytics.tableBucket: must be 3 to 63 lowercase letters, digits or dashes (got "ab")',
  ],
  [
    { tableBucket: "Has_Upper" },
    'analytics.tableBucket: must be 3 to 63 lowercase letters, digits or dashes (got "Has_Upper")',
  ],
  [
    { namespace: "" },
    'analytics.namespace: must be lowercase letters, digits or underscores (got "")',
  ],
  [
    { table: "page-views" },
    'analytics.table: must be lowercase letters, digits or underscores (got "page-views")',
  ],
  [{ bots: "drop" }, 'analytics.bots: must be one of flag, filter (got "drop")'],
  [
    { saltSecretName: "a b" },
    'analytics.saltSecretName: must use only the characters A-Z a-z 0-9 _ / + = . @ - (got "a b")',
  ],
  [
    { dashboard: { port: 80 } },
    "analytics.dashboard.port: must be an integer from 1024 to 65535 (got 80)",
  ],
  [
    { dashboard: { port: 65536 } },
    "analytics.dashboard.port: must be an integer from 1024 to 65535 (got 65536)",
  ],
  [{ dashboard: { host: "0.0.0.0" } }, "analytics.dashboard.host: unknown key"],
  [{ tabel: "x" }, 'analytics.tabel: unknown key (did you mean "table"?)'],
];

Deno.test("resolveAnalyticsConfig() rejects each broken rule and unknown keys", () => {
  for (const [raw, message] of INVALID) {
    const result = resolveAnalyticsConfig(raw, SITE);
    assert.ok("errors" in result, JSON.stringify(raw));
    assert.deepEqual(result.errors.map((e) => `${e.path}: ${e.message}`), [message]);
  }
});

Deno.test("resolveAnalyticsConfig() checks the derived table bucket against the 63-character rule", () => {
  const result = resolveAnalyticsConfig({}, { siteName: "x".repeat(50), env: "production" });
  assert.ok("errors" in result);
  assert.equal(result.errors[0]?.path, "analytics.tableBucket");
});
