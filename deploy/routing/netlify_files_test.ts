import assert from "node:assert/strict";
import { DeployError } from "../errors.ts";
import {
  MAX_LINE_CHARS,
  MAX_RULE_FILE_BYTES,
  mergeRules,
  parseHeadersFile,
  parseRedirectsFile,
} from "./netlify_files.ts";
import { MAX_RULES } from "../config/route_rules.ts";

function refused(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof DeployError, String(err));
    assert.equal(err.code, "rules_invalid");
    assert.match(err.message, message);
    assert.match(err.hint, /nothing was uploaded/);
    return true;
  });
}

Deno.test("parseRedirectsFile() reads comments, default 301, status with ! force, splats and placeholders", () => {
  const text = [
    "# moved in 2024",
    "",
    "/blog/*            /posts/:splat",
    "/news/:year/:slug  /:year/:slug   302!   # trailing comment",
    "/app/*             /app/index.html 200",
    "/docs/*            /docs/404.html  404",
    "/old               https://example.com/new 308",
  ].join("\r\n");
  assert.deepEqual(parseRedirectsFile(text), [
    { line: 3, rule: { from: "/blog/*", to: "/posts/:splat", status: 301, force: false } },
    { line: 4, rule: { from: "/news/:year/:slug", to: "/:year/:slug", status: 302, force: true } },
    { line: 5, rule: { from: "/app/*", to: "/app/index.html", status: 200, force: false } },
    { line: 6, rule: { from: "/docs/*", to: "/docs/404.html", status: 404, force: false } },
    { line: 7, rule: { from: "/old", to: "https://example.com/new", status: 308, force: false } },
  ]);
});

Deno.test("parseRedirectsFile() refuses unsupported features naming the line", () => {
  refused(
    () => parseRedirectsFile("/a /b 302\n/c /d 302 Country=us,ca"),
    /_redirects line 2 .*Country=us,ca/,
  );
  refused(
    () => parseRedirectsFile("/admin/* /admin/:splat 200! Role=admin"),
    /line 1 .*Role=admin/,
  );
  refused(() => parseRedirectsFile("/x /y 301 Language=fr"), /line 1 .*Language=fr/);
  refused(() => parseRedirectsFile("/store id=:id /blog/:id 301"), /line 1 .*query parameters/);
  refused(
    () => parseRedirectsFile("https://old.example/* https://new.example/:splat"),
    /line 1 .*host name/,
  );
  refused(() => parseRedirectsFile("/only-from"), /line 1 has no target/);
  refused(() => parseRedirectsFile("/a /b 301 extra"), /line 1 has unexpected text "extra"/);
});

Deno.test("parseRedirectsFile() answers hostile input with a clear error", () => {
  refused(() => parseRedirectsFile("/a /b\n/c /d\u0000e"), /line 2 has a control character/);
  refused(
    () => parseRedirectsFile(`/a /${"b".repeat(MAX_LINE_CHARS)}`),
    /line 1 is over 4096 characters/,
  );
  refused(
    () => parseRedirectsFile("/a /b\n".repeat(100_000)),
    /too large: 100000 rules, over 2000/,
  );
  refused(
    () => parseRedirectsFile("#".repeat(MAX_RULE_FILE_BYTES + 1)),
    /too large: over 1048576 bytes/,
  );
});

Deno.test("parseRedirectsFile() accepts exactly the most rules allowed", () => {
  assert.equal(parseRedirectsFile("/a /b\n".repeat(MAX_RULES)).length, MAX_RULES);
});

Deno.test("parseHeadersFile() reads path blocks, joins repeated names, skips comments", () => {
  const text = [
    "# security",
    "/*",
    "  X-Frame-Options: DENY",
    "  Content-Security-Policy: default-src 'self'",
    "",
    "/assets/*",
    "\tCache-Control: public, max-age=31536000",
    "  cache-control: immutable",
  ].join("\n");
  assert.deepEqual(parseHeadersFile(text), [
    {
      line: 2,
      rule: {
        for: "/*",
        values: { "X-Frame-Options": "DENY", "Content-Security-Policy": "default-src 'self'" },
      },
    },
    {
      line: 6,
      rule: {
        for: "/assets/*",
        values: { "Cache-Control": "public, max-age=31536000, immutable" },
      },
    },
  ]);
});

Deno.test("parseHeadersFile() refuses header lines without a path and hostile input, naming the line", () => {
  refused(() => parseHeadersFile("  X-A: b"), /_headers line 1 is a header line before any path/);
  refused(() => parseHeadersFile("/*\n  no colon here"), /line 2 is not a Name: value/);
  refused(() => parseHeadersFile("/*\n  X-A: b\u001b[31m"), /line 2 has a control character/);
  refused(() => parseHeadersFile("/x\n  A: b\n".repeat(MAX_RULES + 1)), /too large/);
});

Deno.test("mergeRules() puts the config's rules before the files' rules", () => {
  const merged = mergeRules(
    { redirects: [{ from: "/a", to: "/config", status: 301, force: false }], headers: [] },
    {
      redirects: [{ line: 1, rule: { from: "/a", to: "/file", status: 301, force: false } }],
      headers: [{ line: 1, rule: { for: "/*", values: { "X-A": "1" } } }],
    },
  );
  assert.deepEqual(merged.redirects.map((r) => r.to), ["/config", "/file"]);
  assert.deepEqual(merged.headers, [{ for: "/*", values: { "X-A": "1" } }]);
});
