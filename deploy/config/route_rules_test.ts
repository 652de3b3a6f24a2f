import assert from "node:assert/strict";
import { leavesSiteRoot, normaliseTarget, redirectIssues, siteTargetPath } from "./route_rules.ts";

const at = (i: number) => `redirects[${i}]`;

Deno.test("redirectIssues() refuses a target whose dot segments leave the site root, however spelt", () => {
  const climbing = [
    "/../state/production.json",
    "/a/../../locks/production.json",
    "/%2e%2e/state/production.json",
    "/.%2E/state/production.json",
    "/a/%2e%2e%2f..%2fstate/production.json",
    "/a\\..\\..\\state",
    "/./../x?y=1",
  ];
  for (const to of climbing) {
    for (const status of [200, 404, 301]) {
      const issues = redirectIssues([{ from: "/x", to, status }], at);
      assert.deepEqual(issues.map((i) => i.path), ["redirects[0].to"], `${to} ${status}`);
      assert.match(issues[0]!.message, /must stay inside the site root/);
    }
  }
});

Deno.test("redirectIssues() accepts dot segments that stay inside the root, and other hosts' URLs", () => {
  for (const to of ["/a/../b", "/a/./b/..", "/..a/b", "/a/...", "https://other.example/../x"]) {
    assert.deepEqual(redirectIssues([{ from: "/x", to, status: 301 }], at), [], to);
  }
});

Deno.test("redirectIssues() checks a redirect to the site's own host like a path", () => {
  const own = ["www.example.com"];
  for (const to of ["https://www.example.com/../state/x", "https://WWW.example.com:443/%2e%2e/x"]) {
    const issues = redirectIssues([{ from: "/x", to, status: 302 }], at, own);
    assert.deepEqual(issues.map((i) => i.path), ["redirects[0].to"], to);
  }
  assert.deepEqual(
    redirectIssues([{ from: "/x", to: "https://www.example.com/a/../b", status: 302 }], at, own),
    [],
  );
});

Deno.test("siteTargetPath() names the path on the site itself, leaving query and other hosts out", () => {
  assert.equal(siteTargetPath("/a/b?c=../..", []), "/a/b");
  assert.equal(siteTargetPath("https://example.com", ["example.com"]), "/");
  assert.equal(siteTargetPath("https://u@example.com./p#f", ["example.com"]), "/p");
  assert.equal(siteTargetPath("https://example.org/p", ["example.com"]), undefined);
});

Deno.test("leavesSiteRoot() reads encoded slashes and backslashes as separators", () => {
  assert.equal(leavesSiteRoot("/a/b/../../.."), true);
  assert.equal(leavesSiteRoot("/a/b/../.."), false);
  assert.equal(leavesSiteRoot("/a%2f..%2f.."), true);
  assert.equal(leavesSiteRoot("/a%5C..%5C.."), true);
});

Deno.test("normaliseTarget() resolves dot segments of a path target and keeps its query", () => {
  assert.equal(normaliseTarget("/docs/./old/../guide?x=/../"), "/docs/guide?x=/../");
  assert.equal(normaliseTarget("/a/%2E%2e/b"), "/b");
  assert.equal(normaliseTarget("/a/b/.."), "/a/");
  assert.equal(normaliseTarget("/posts/:splat"), "/posts/:splat");
  assert.equal(normaliseTarget("https://example.org/a/../b"), "https://example.org/a/../b");
});
