import assert from "node:assert/strict";
import type { DeployPlan, DeploySummary } from "./deploy.ts";
import {
  cacheText,
  planJson,
  planLines,
  progressBar,
  rulesLines,
  stepsText,
  summaryJson,
  summaryLines,
} from "./report.ts";

const STEPS = {
  revision: 40,
  zip: 210,
  cacheRestore: 0,
  install: 1600,
  build: 5340,
  rules: 0,
  sync: 450,
  invalidation: 90,
};
const CACHE = { used: true, hit: true, frameworkHit: true, key: "npm-ab" };
/** What every plan in these tests shares besides its own fields. */
const PLAN_TAIL: Pick<DeployPlan, "cache" | "steps"> = { cache: CACHE, steps: STEPS };

Deno.test("progressBar() fills by bytes and shows files and bytes, without escape codes", () => {
  const half = progressBar(
    { phase: "upload", done: 1, total: 4, bytes: 512, totalBytes: 1024 },
    10,
  );
  assert.equal(half, "uploading [#####-----] 1/4 files  512 B/1.0 KB");
  assert.equal(
    progressBar({ phase: "upload", done: 2, total: 2, bytes: 0, totalBytes: 0 }, 4),
    "uploading [####] 2/2 files  0 B/0 B",
  );
  assert.equal(
    progressBar({ phase: "delete", done: 1, total: 3, bytes: 0, totalBytes: 0 }),
    "deleting 1/3",
  );
});

const SUMMARY: DeploySummary = {
  revision: "0123456789ab",
  uploaded: 0,
  deleted: 0,
  kept: [],
  expired: [],
  unchanged: 6,
  bytesUploaded: 0,
  durationMs: 1200,
  invalidation: undefined,
  url: undefined,
  changedKeys: [],
  warnings: [],
  cache: CACHE,
  steps: STEPS,
};

Deno.test("summaryJson() writes null for no invalidation and no URL", () => {
  const json = summaryJson("production", "local", SUMMARY);
  assert.equal(json.invalidation, null);
  assert.equal(json.url, null);
  assert.equal(JSON.parse(JSON.stringify(json)).invalidation, null);
});

Deno.test("summaryLines() names the revision, counts, duration, invalidation and URL", () => {
  const lines = summaryLines("staging", {
    ...SUMMARY,
    uploaded: 1,
    bytesUploaded: 2048,
    invalidation: { id: "I1", paths: ["/a", "/a/"] },
    url: "https://d1.cloudfront.net",
  });
  assert.deepEqual(lines, [
    "Deployed staging at revision 0123456789ab",
    "  uploaded      1 file (2.0 KB)",
    "  deleted       0 files",
    "  unchanged     6 files",
    "  duration      1 s",
    "  time          revision 40 ms · zip 210 ms · cache restore 0 ms · install 1.6 s · " +
    "build 5.3 s · rules 0 ms · sync 450 ms · invalidation 90 ms",
    "  cache         hit: dependencies restored; framework caches restored",
    "  invalidation  I1: 2 path(s)",
    "  url           https://d1.cloudfront.net",
  ]);
  assert.ok(summaryLines("staging", SUMMARY).includes("  invalidation  none (nothing changed)"));
});

Deno.test("planLines() says when nothing would be invalidated", () => {
  const lines = planLines("production", {
    revision: "r",
    uploads: [],
    deletes: ["old.html"],
    kept: [],
    expired: [],
    unchanged: 2,
    bytes: 0,
    invalidation: [],
    warnings: [],
    ...PLAN_TAIL,
  });
  assert.deepEqual(lines, [
    "Plan for production at revision r:",
    "  delete  old.html",
    "0 to upload (0 B), 1 to delete, 2 unchanged",
    "nothing to invalidate",
    "cache hit: dependencies restored; framework caches restored",
    `time  ${stepsText(STEPS)}`,
    "Nothing was changed (plan only).",
  ]);
});

const KEPT = {
  key: "assets/app.1.js",
  size: 2048,
  since: "2026-06-01T00:00:00.000Z",
  until: "2026-06-08T00:00:00.000Z",
};

Deno.test("planLines() lists the files kept for open tabs and marks the ones deleted after their grace", () => {
  const lines = planLines("production", {
    revision: "r",
    uploads: [],
    deletes: ["assets/app.0.js", "old.html"],
    kept: [KEPT],
    expired: ["assets/app.0.js"],
    unchanged: 2,
    bytes: 0,
    invalidation: ["/assets/app.0.js", "/old.html"],
    warnings: [],
    ...PLAN_TAIL,
  });
  assert.deepEqual(lines, [
    "Plan for production at revision r:",
    "  delete  assets/app.0.js (kept for open tabs, grace over)",
    "  delete  old.html",
    "  keep    assets/app.1.js (2.0 KB, for open tabs until 2026-06-08T00:00:00.000Z)",
    "0 to upload (0 B), 2 to delete, 2 unchanged",
    "1 file (2.0 KB) of earlier builds kept for open tabs; 1 file deleted after the grace",
    "would invalidate 2 path(s): /assets/app.0.js /old.html",
    "cache hit: dependencies restored; framework caches restored",
    `time  ${stepsText(STEPS)}`,
    "Nothing was changed (plan only).",
  ]);
});

Deno.test("planJson() adds kept and expired after deletes, keeping every other key as it was", () => {
  const json = planJson("production", "local", {
    revision: "r",
    uploads: [],
    deletes: ["assets/app.0.js"],
    kept: [KEPT],
    expired: ["assets/app.0.js"],
    unchanged: 2,
    bytes: 0,
    invalidation: ["/assets/app.0.js"],
    warnings: [],
    ...PLAN_TAIL,
  });
  assert.deepEqual(Object.keys(json), [
    "env",
    "builder",
    "revision",
    "uploads",
    "deletes",
    "kept",
    "expired",
    "unchanged",
    "bytes",
    "invalidation",
    "rules",
    "cache",
    "steps",
    "warnings",
  ]);
  assert.deepEqual(json.steps, STEPS);
  assert.equal(json.cache.hit, true);
  assert.deepEqual(json.kept, [KEPT]);
  assert.deepEqual(json.expired, ["assets/app.0.js"]);
});

Deno.test("summaryJson() and summaryLines() show the kept files and those deleted after their grace", () => {
  const s = { ...SUMMARY, deleted: 1, kept: [KEPT, { ...KEPT, key: "a.css", size: 1024 }] };
  const json = summaryJson("production", "local", { ...s, expired: ["assets/app.0.js"] });
  assert.equal(json.kept.length, 2);
  assert.deepEqual(json.expired, ["assets/app.0.js"]);
  const lines = summaryLines("production", { ...s, expired: ["assets/app.0.js"] });
  assert.ok(
    lines.includes(
      "  kept          2 files (3.0 KB) of earlier builds, for open tabs; " +
        "1 file deleted after the grace",
    ),
    lines.join("\n"),
  );
  assert.ok(!summaryLines("production", SUMMARY).some((l) => l.startsWith("  kept")));
});

Deno.test("rulesLines() says how many rules, where the table is, and each change or none", () => {
  const report = {
    redirects: 2001,
    headers: 2,
    table: "store" as const,
    storeEntries: 1990,
    changed: true,
    changes: ["viewer-request function production-blog-rewrite published"],
  };
  assert.deepEqual(rulesLines(report, "  "), [
    "  rules         2001 redirect(s) in the key value store, 1990 entries, 2 header rule(s); 1 change(s)",
    "    viewer-request function production-blog-rewrite published",
  ]);
  assert.deepEqual(
    rulesLines({ ...report, table: "inline", storeEntries: 0, changed: false, changes: [] }, ""),
    ["rules 2001 redirect(s) in the function, 2 header rule(s); unchanged"],
  );
});

Deno.test("cacheText() tells a hit, a miss, an uncached install and a cache not used", () => {
  assert.equal(cacheText({ ...CACHE, frameworkHit: false }), "hit: dependencies restored");
  assert.equal(
    cacheText({ ...CACHE, hit: false, frameworkHit: false }),
    "miss: dependencies installed and kept for the next build",
  );
  assert.match(cacheText({ ...CACHE, key: null, hit: false }), /^dependencies not cached/);
  assert.equal(cacheText({ used: false, hit: false, frameworkHit: false, key: null }), "not used");
});

Deno.test("stepsText() shows only the steps asked for, in the deploy's order", () => {
  assert.equal(
    stepsText(STEPS, ["sync", "revision"]),
    "revision 40 ms · sync 450 ms",
  );
});
