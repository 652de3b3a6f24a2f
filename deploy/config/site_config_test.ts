import assert from "node:assert/strict";
import type { ConfigIssue } from "@org/shared";
import { resolveSiteConfig, type ResolveSiteOptions, type SiteConfig } from "./site_config.ts";

const OPTS: ResolveSiteOptions = { env: "production", repoDir: "/src/my-blog" };

function ok(raw: unknown, opts: Partial<ResolveSiteOptions> = {}): SiteConfig {
  const result = resolveSiteConfig(raw, { ...OPTS, ...opts });
  if ("errors" in result) throw new Error(`unexpected errors: ${JSON.stringify(result.errors)}`);
  return result.config;
}

function errors(raw: unknown, opts: Partial<ResolveSiteOptions> = {}): ConfigIssue[] {
  const result = resolveSiteConfig(raw, { ...OPTS, ...opts });
  if ("config" in result) throw new Error("expected errors, got a config");
  return result.errors;
}

Deno.test("resolveSiteConfig() fills every default from the spec for a minimal file", () => {
  const expected: SiteConfig = {
    siteName: "blog",
    region: "us-east-1",
    app: "my-blog",
    build: { builder: "microvm" },
    microvm: {
      memory: 4,
      maxDurationSeconds: 1800,
      idle: {
        autoResumeEnabled: false,
        maxIdleDurationSeconds: 300,
        suspendedDurationSeconds: 120,
      },
    },
    retention: { microvmDays: 365, cloudfrontDays: 90, previousDays: 7, buildsDays: 30 },
    sourceIgnore: [".jj/", ".git/", "node_modules/", "dist/", ".astro/"],
    sourceInclude: [],
    invalidationMaxPaths: 1000,
    defaultRootObject: "index.html",
    spa: false,
    redirects: [],
    headers: [],
    seo: { robots: "auto", sitemap: "auto" },
    previews: {},
    paths: {
      app: ".",
      dist: "dist",
      publicDir: "public",
      content: "src/content/blog",
      atprotoJson: "src/data/atproto.json",
      commentsJson: "src/data/comments.json",
    },
  };
  assert.deepEqual(ok({ siteName: "blog" }), expected);
});

Deno.test("resolveSiteConfig() merges nested objects key by key, including microvm.idle", () => {
  const config = ok({
    siteName: "blog",
    microvm: { memory: 8, idle: { autoResumeEnabled: true } },
    retention: { cloudfrontDays: 30 },
    seo: { sitemap: "off" },
    paths: { dist: "build" },
  });
  assert.deepEqual(config.microvm, {
    memory: 8,
    maxDurationSeconds: 1800,
    idle: { autoResumeEnabled: true, maxIdleDurationSeconds: 300, suspendedDurationSeconds: 120 },
  });
  assert.deepEqual(config.retention, {
    microvmDays: 365,
    cloudfrontDays: 30,
    previousDays: 7,
    buildsDays: 30,
  });
  assert.deepEqual(config.seo, { robots: "auto", sitemap: "off" });
  assert.equal(config.paths.dist, "build");
  assert.equal(config.paths.app, ".");
});

Deno.test("resolveSiteConfig() replaces arrays outright: sourceIgnore drops the default list", () => {
  assert.deepEqual(ok({ siteName: "blog", sourceIgnore: ["tmp/"] }).sourceIgnore, ["tmp/"]);
  assert.deepEqual(ok({ siteName: "blog", sourceIgnore: [] }).sourceIgnore, []);
  assert.deepEqual(ok({ siteName: "blog", sourceInclude: ["src/gen"] }).sourceInclude, ["src/gen"]);
});

Deno.test("resolveSiteConfig() never shares default arrays between results", () => {
  const a = ok({ siteName: "blog" });
  a.sourceIgnore.push("x/");
  assert.equal(ok({ siteName: "blog" }).sourceIgnore.length, 5);
});

const DIST_ROOT_RULE =
  "not be the repository root (it would publish the whole repository, config included)";
const APP_RULE = "be at most 256 letters, digits, spaces or _ . : / = + - @ (an AWS tag value)";

// One row per rule of the spec's validation table (and the type rules around it): a valid
// value, then an invalid one with the exact message the user sees.
const ROWS: { key: string; valid: unknown[]; invalid: [unknown, string][] }[] = [
  {
    key: "siteName",
    valid: ["blog", "my-site-2", "a"],
    invalid: [
      [
        "My_Site",
        'siteName: must match ^[a-z0-9-]+$ (lowercase letters, digits and dashes) (got "My_Site")',
      ],
      ["", 'siteName: must match ^[a-z0-9-]+$ (lowercase letters, digits and dashes) (got "")'],
      [42, "siteName: must be a string (got 42)"],
    ],
  },
  {
    key: "region",
    valid: ["eu-west-1"],
    invalid: [["", 'region: must be non-empty (got "")'], [
      "  ",
      'region: must be non-empty (got "  ")',
    ]],
  },
  {
    key: "microvm.memory",
    valid: [0.5, 1, 2, 4, 8],
    invalid: [
      [3, "microvm.memory: must be one of 0.5, 1, 2, 4, 8 (got 3)"],
      [16, "microvm.memory: must be one of 0.5, 1, 2, 4, 8 (got 16)"],
      ["4", 'microvm.memory: must be one of 0.5, 1, 2, 4, 8 (got "4")'],
    ],
  },
  {
    key: "microvm.maxDurationSeconds",
    valid: [1, 1800, 28800],
    invalid: [
      [0, "microvm.maxDurationSeconds: must be an integer from 1 to 28800 (got 0)"],
      [28801, "microvm.maxDurationSeconds: must be an integer from 1 to 28800 (got 28801)"],
      [1.5, "microvm.maxDurationSeconds: must be an integer from 1 to 28800 (got 1.5)"],
    ],
  },
  {
    key: "microvm.idle.autoResumeEnabled",
    valid: [true, false],
    invalid: [["yes", 'microvm.idle.autoResumeEnabled: must be true or false (got "yes")']],
  },
  {
    key: "microvm.idle.maxIdleDurationSeconds",
    valid: [0, 600],
    invalid: [[-1, "microvm.idle.maxIdleDurationSeconds: must be a non-negative integer (got -1)"]],
  },
  {
    key: "retention.microvmDays",
    valid: [1, 3653],
    invalid: [
      [0, "retention.microvmDays: must be a positive integer (got 0)"],
      [-5, "retention.microvmDays: must be a positive integer (got -5)"],
      [2.5, "retention.microvmDays: must be a positive integer (got 2.5)"],
    ],
  },
  {
    key: "retention.cloudfrontDays",
    valid: [1, 90],
    invalid: [[0, "retention.cloudfrontDays: must be a positive integer (got 0)"]],
  },
  {
    key: "retention.previousDays",
    valid: [0, 7, 365],
    invalid: [
      [-1, "retention.previousDays: must be a non-negative integer (got -1)"],
      [1.5, "retention.previousDays: must be a non-negative integer (got 1.5)"],
      ["7", 'retention.previousDays: must be a non-negative integer (got "7")'],
    ],
  },
  {
    key: "retention.buildsDays",
    valid: [1, 30, 365],
    invalid: [
      [0, "retention.buildsDays: must be a positive integer (got 0)"],
      [1.5, "retention.buildsDays: must be a positive integer (got 1.5)"],
    ],
  },
  {
    key: "build.builder",
    valid: ["local", "microvm"],
    invalid: [["lambda", 'build.builder: must be one of microvm, local (got "lambda")']],
  },
  {
    key: "seo.robots",
    valid: ["auto", "index", "noindex", "off"],
    invalid: [["yes", 'seo.robots: must be one of auto, index, noindex, off (got "yes")']],
  },
  {
    key: "seo.sitemap",
    valid: ["auto", "on", "off"],
    invalid: [["always", 'seo.sitemap: must be one of auto, on, off (got "always")']],
  },
  {
    key: "sourceInclude",
    valid: [[], ["src/generated", "a/b/c.txt", "..hidden"]],
    invalid: [
      [
        ["/etc/passwd"],
        'sourceInclude[0]: must be a repo-relative path (no leading /, no .. segment) (got "/etc/passwd")',
      ],
      [
        ["ok", "a/../../b"],
        'sourceInclude[1]: must be a repo-relative path (no leading /, no .. segment) (got "a/../../b")',
      ],
      [
        [".."],
        'sourceInclude[0]: must be a repo-relative path (no leading /, no .. segment) (got "..")',
      ],
      ["src", 'sourceInclude: must be an array of strings (got "src")'],
    ],
  },
  {
    key: "sourceIgnore",
    valid: [["tmp/"]],
    invalid: [[[1], "sourceIgnore[0]: must be a string (got 1)"]],
  },
  {
    key: "paths.app",
    valid: [".", "site", "apps/web"],
    invalid: [
      ["", 'paths.app: must be non-empty (got "")'],
      [
        "/abs",
        'paths.app: must be a repo-relative path (no leading /, no .. segment) (got "/abs")',
      ],
      [
        "../other",
        'paths.app: must be a repo-relative path (no leading /, no .. segment) (got "../other")',
      ],
    ],
  },
  {
    key: "paths.dist",
    valid: ["dist", "apps/web/dist"],
    invalid: [
      ["", 'paths.dist: must be non-empty (got "")'],
      [".", `paths.dist: must ${DIST_ROOT_RULE} (got ".")`],
      ["./", `paths.dist: must ${DIST_ROOT_RULE} (got "./")`],
      ["./.", `paths.dist: must ${DIST_ROOT_RULE} (got "./.")`],
      [
        "dist/..",
        'paths.dist: must be a repo-relative path (no leading /, no .. segment) (got "dist/..")',
      ],
    ],
  },
  {
    key: "invalidationMaxPaths",
    valid: [1, 3000],
    invalid: [[0, "invalidationMaxPaths: must be a positive integer (got 0)"]],
  },
  {
    key: "spa",
    valid: [true],
    invalid: [["true", 'spa: must be true or false (got "true")']],
  },
  {
    key: "defaultRootObject",
    valid: ["home.html"],
    invalid: [["/index.html", 'defaultRootObject: must not start with / (got "/index.html")']],
  },
  {
    key: "app",
    valid: ["blog", "blog.example.com", "Mein Blog: Ünïcode/2024 +=@_-", "x".repeat(256)],
    invalid: [
      ["blog!", `app: must ${APP_RULE} (got "blog!")`],
      ["a\tb", `app: must ${APP_RULE} (got "a\\tb")`],
      ["x".repeat(257), `app: must ${APP_RULE} (got "${"x".repeat(257)}")`],
      ["", 'app: must be non-empty (got "")'],
    ],
  },
  {
    key: "githubRepo",
    valid: ["acme/blog"],
    invalid: [["acme", 'githubRepo: must be owner/repo (got "acme")']],
  },
  {
    key: "domain",
    valid: ["blog.example.com"],
    invalid: [[
      "https://blog.example.com",
      'domain: must be a host name like example.com (no scheme, port or path) (got "https://blog.example.com")',
    ]],
  },
  {
    key: "microvm",
    valid: [{}],
    invalid: [[[], "microvm: must be an object (got an array)"], [
      null,
      "microvm: must be an object (got null)",
    ]],
  },
];

function withKey(path: string, value: unknown): Record<string, unknown> {
  const root: Record<string, unknown> = path === "siteName" ? {} : { siteName: "blog" };
  const parts = path.split(".");
  let node = root;
  for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[parts.at(-1)!] = value;
  return root;
}

for (const row of ROWS) {
  Deno.test(`resolveSiteConfig() accepts valid ${row.key} values`, () => {
    for (const value of row.valid) ok(withKey(row.key, value));
  });
  Deno.test(`resolveSiteConfig() rejects invalid ${row.key} values naming the key and rule`, () => {
    for (const [value, message] of row.invalid) {
      const found = errors(withKey(row.key, value)).map((e) => `${e.path}: ${e.message}`);
      assert.deepEqual(found, [message]);
    }
  });
}

Deno.test("resolveSiteConfig() requires siteName", () => {
  assert.deepEqual(errors({ region: "us-east-1" }), [{ path: "siteName", message: "is required" }]);
});

Deno.test("resolveSiteConfig() rejects a file that is not an object", () => {
  assert.deepEqual(errors([1, 2]), [{ path: "", message: "must be an object (got an array)" }]);
});

Deno.test("resolveSiteConfig() reports every failure at once", () => {
  const found = errors({
    siteName: "Bad Name",
    region: "",
    microvm: { memory: 3, maxDurationSeconds: 0 },
    retention: { microvmDays: 0 },
    seo: { robots: "x" },
  }).map((e) => e.path);
  assert.deepEqual(found, [
    "siteName",
    "region",
    "microvm.memory",
    "microvm.maxDurationSeconds",
    "retention.microvmDays",
    "seo.robots",
  ]);
});

Deno.test("resolveSiteConfig() rejects unknown keys with a did-you-mean suggestion", () => {
  assert.deepEqual(errors({ siteName: "blog", regoin: "eu-west-1", zzz: 1 }), [
    { path: "regoin", message: 'unknown key (did you mean "region"?)' },
    { path: "zzz", message: "unknown key" },
  ]);
  assert.deepEqual(errors({ siteName: "blog", microvm: { memroy: 2 } }), [
    { path: "microvm.memroy", message: 'unknown key (did you mean "memory"?)' },
  ]);
});

Deno.test("resolveSiteConfig() allows $schema and leaves it out of the result", () => {
  const config = ok({ $schema: "../deploy/config.schema.json", siteName: "blog" });
  assert.equal("$schema" in config, false);
});

Deno.test("resolveSiteConfig() rejects a bucket name over 63 characters, advising to shorten", () => {
  // "production-" (11) + 39 + "-" + 12 digits = 63: fits exactly.
  const fits = "a".repeat(39);
  ok({ siteName: fits });
  const [issue, ...rest] = errors({ siteName: fits + "b" });
  assert.equal(rest.length, 0);
  assert.equal(issue?.path, "siteName");
  assert.match(issue!.message, /is 64 characters, over the 63 allowed/);
  assert.match(issue!.message, /shorten the environment or site name/);
  // The environment counts too.
  assert.equal(errors({ siteName: fits }, { env: "production2" }).length, 1);
});

Deno.test("resolveSiteConfig() checks the bucket length with the real account id when known", () => {
  const [issue] = errors({ siteName: "a".repeat(40) }, { accountId: "123456789012" });
  assert.match(issue!.message, /"production-a+-123456789012" is 64 characters/);
  assert.doesNotMatch(issue!.message, /counting a 12-digit/);
});

Deno.test("resolveSiteConfig() rejects an environment name unfit for resource names", () => {
  const [issue] = errors({ siteName: "blog" }, { env: "Prod" });
  assert.match(issue!.message, /environment name "Prod" must match/);
});

Deno.test("resolveSiteConfig(): app falls back to domain, then the repo directory name", () => {
  assert.equal(ok({ siteName: "blog", app: "marketing" }).app, "marketing");
  assert.equal(ok({ siteName: "blog", domain: "blog.example.com" }).app, "blog.example.com");
  assert.equal(ok({ siteName: "blog" }).app, "my-blog");
});

Deno.test("resolveSiteConfig(): a fallback app with characters AWS rejects in tags is sanitised", () => {
  assert.equal(
    ok({ siteName: "blog" }, { repoDir: "/src/my blog (2024)!" }).app,
    "my blog -2024--",
  );
  assert.equal(ok({ siteName: "blog" }, { repoDir: `/src/${"a".repeat(300)}` }).app.length, 256);
  assert.equal(ok({ siteName: "blog", domain: "b*log.example.com" }).app, "b-log.example.com");
  // An explicit app is validated, never rewritten.
  assert.deepEqual(errors({ siteName: "blog", app: "my blog!" }).map((e) => e.path), ["app"]);
});

Deno.test("resolveSiteConfig() reports __proto__ and inherited names as unknown keys", () => {
  const raw = JSON.parse('{"siteName":"blog","__proto__":{"spa":true},"toString":1}');
  assert.deepEqual(errors(raw).map((e) => `${e.path}: ${e.message}`), [
    "__proto__: unknown key",
    "toString: unknown key",
  ]);
});

Deno.test("resolveSiteConfig(): --domain beats the domain key (and feeds the app fallback)", () => {
  const config = ok({ siteName: "blog", domain: "old.example.com" }, {
    domainFlag: "new.example.com",
  });
  assert.equal(config.domain, "new.example.com");
  assert.equal(config.app, "new.example.com");
  assert.deepEqual(errors({ siteName: "blog" }, { domainFlag: "http://x" }).map((e) => e.path), [
    "--domain",
  ]);
});

Deno.test("resolveSiteConfig() carries pds and analytics through unchecked", () => {
  const config = ok({ siteName: "blog", pds: { name: "", bogus: 1 }, analytics: { nope: true } });
  assert.deepEqual(config.pds, { name: "", bogus: 1 });
  assert.deepEqual(config.analytics, { nope: true });
});

Deno.test("resolveSiteConfig() resolves redirects with status 301 and force false by default", () => {
  const config = ok({
    siteName: "blog",
    redirects: [
      { from: "/blog/*", to: "/posts/:splat" },
      { from: "/news/:year/:slug", to: "/:year/:slug", status: 302, force: true },
      { from: "/app/*", to: "/app/index.html", status: 200 },
      { from: "/docs/*", to: "/docs/404.html", status: 404 },
      { from: "/old", to: "https://example.com/new?x=1", status: 308 },
    ],
    headers: [{ for: "/assets/*", values: { "Cache-Control": "public, max-age=31536000" } }],
  });
  assert.deepEqual(config.redirects[0], {
    from: "/blog/*",
    to: "/posts/:splat",
    status: 301,
    force: false,
  });
  assert.equal(config.redirects[1]!.force, true);
  assert.deepEqual(config.headers, [
    { for: "/assets/*", values: { "Cache-Control": "public, max-age=31536000" } },
  ]);
});

Deno.test("resolveSiteConfig() reports every redirect and header problem at once with key paths", () => {
  const found = errors({
    siteName: "blog",
    redirects: [
      { from: "/a", to: "/b", status: 303 },
      { from: "/a/:id", to: "/b/:slug/:splat" },
      { from: "a/*/b", to: "/b" },
      { from: "/p/*", to: "https://other.example/:splat", status: 200 },
      { to: "/x" },
    ],
    headers: [
      {
        for: "/*",
        values: {
          "Bad Name": "x",
          Connection: "close",
          "X-Amz-Cf-Pop": "x",
          "content-length": "1",
          "X-Ok": "a\u0007b",
        },
      },
    ],
  }).map((e) => `${e.path}: ${e.message}`);
  const expected = [
    "redirects[0].status: must be one of 200, 301, 302, 307, 308, 404",
    'redirects[1].to: uses :slug but "from" has no :slug segment',
    'redirects[1].to: uses :splat but "from" has no trailing *',
    "redirects[2].from: must be a path starting with /",
    "redirects[3].to: must be a path for status 200",
    "redirects[4].from: is required",
    "headers[0].values.Bad Name: key must be an HTTP header name",
    "headers[0].values.X-Ok: must contain no control characters",
  ];
  for (const line of expected) {
    assert.ok(found.some((f) => f.startsWith(line)), `missing ${line} in\n${found.join("\n")}`);
  }
});

Deno.test("resolveSiteConfig() rejects hop-by-hop and CloudFront-reserved header names", () => {
  const found = errors({
    siteName: "blog",
    headers: [{
      for: "/*",
      values: { Connection: "close", "X-Amz-Cf-Pop": "x", "content-length": "1", Via: "1.1 x" },
    }],
  }).map((e) => `${e.path}: ${e.message}`);
  assert.deepEqual(found, [
    "headers[0].values.Connection: must not be a hop-by-hop header",
    "headers[0].values.X-Amz-Cf-Pop: must not be a header CloudFront reserves",
    "headers[0].values.content-length: must not be a header CloudFront reserves",
    "headers[0].values.Via: must not be a header CloudFront reserves",
  ]);
});

Deno.test("resolveSiteConfig() refuses config rules whose target leaves the site root, the own domain's URLs too", () => {
  const rules = {
    siteName: "blog",
    domain: "blog.example.com",
    redirects: [
      { from: "/x", to: "/../state/production.json", status: 200 },
      { from: "/y", to: "https://blog.example.com/a/%2e%2e/../locks/x", status: 301 },
      { from: "/z", to: "https://other.example/../x", status: 301 },
      { from: "/ok", to: "/a/../b", status: 200 },
    ],
  };
  assert.deepEqual(errors(rules).map((e) => e.path), ["redirects[0].to", "redirects[1].to"]);
  // `--domain` names the own host when the key does not.
  const flagged = { ...rules, domain: undefined };
  assert.deepEqual(
    errors(flagged, { domainFlag: "blog.example.com" }).map((e) => e.path),
    ["redirects[0].to", "redirects[1].to"],
  );
});

Deno.test("resolveSiteConfig() checks build.env and build.secrets names, each error naming its key", () => {
  const config = ok({
    siteName: "blog",
    build: { env: { PUBLIC_API: "https://${HOST}/api" }, secrets: { CMS_TOKEN: "blog/cms" } },
  });
  // `${VAR}` stays as written until a deploy fills it: `config` and other commands never need it.
  assert.deepEqual(config.build, {
    builder: "microvm",
    env: { PUBLIC_API: "https://${HOST}/api" },
    secrets: { CMS_TOKEN: "blog/cms" },
  });
  const problems = errors({
    siteName: "blog",
    build: { env: { "1X": "a" }, secrets: { TOKEN: "has space" }, extra: true },
  });
  assert.deepEqual(problems.map((p) => p.path).sort(), [
    "build.env.1X",
    "build.extra",
    "build.secrets.TOKEN",
  ]);
});
