import assert from "node:assert/strict";
import { cdnPathsFor, encodeSegment, planInvalidation } from "./plan_invalidation.ts";

Deno.test("cdnPathsFor() invalidates a directory index as the file, the slash and the bare path", () => {
  assert.deepEqual(cdnPathsFor("a/index.html"), ["/a/index.html", "/a/", "/a"]);
  assert.deepEqual(cdnPathsFor("blog/post/index.html"), [
    "/blog/post/index.html",
    "/blog/post/",
    "/blog/post",
  ]);
});

Deno.test("cdnPathsFor() invalidates the root object and /", () => {
  assert.deepEqual(cdnPathsFor("index.html"), ["/index.html", "/"]);
  assert.deepEqual(cdnPathsFor("home.html", "home.html"), ["/home.html", "/"]);
});

Deno.test("cdnPathsFor() gives a plain asset only its own path", () => {
  assert.deepEqual(cdnPathsFor("_astro/app.1a2b3c4d.js"), ["/_astro/app.1a2b3c4d.js"]);
  assert.deepEqual(cdnPathsFor("about.html"), ["/about.html"]);
});

Deno.test("cdnPathsFor() percent-encodes spaces, unicode and the * wildcard", () => {
  assert.deepEqual(cdnPathsFor("my file*.txt"), ["/my%20file%2A.txt"]);
  assert.deepEqual(cdnPathsFor("café/x.png"), ["/caf%C3%A9/x.png"]);
});

Deno.test("planInvalidation() invalidates nothing for an identical redeploy", () => {
  assert.deepEqual(planInvalidation([], 1000), []);
});

Deno.test("planInvalidation() deduplicates and sorts the paths", () => {
  assert.deepEqual(planInvalidation(["b.css", "a/index.html", "b.css"], 1000), [
    "/a",
    "/a/",
    "/a/index.html",
    "/b.css",
  ]);
});

Deno.test("planInvalidation() keeps exactly invalidationMaxPaths paths individual", () => {
  assert.deepEqual(planInvalidation(["a.css", "b.css", "c.css"], 3), [
    "/a.css",
    "/b.css",
    "/c.css",
  ]);
});

Deno.test("planInvalidation() falls back to exactly /* one path past invalidationMaxPaths", () => {
  assert.deepEqual(planInvalidation(["a.css", "b.css", "c.css", "d.css"], 3), ["/*"]);
});

Deno.test("planInvalidation() counts expanded paths, not keys, against the cap", () => {
  // one key, three paths
  assert.deepEqual(planInvalidation(["a/index.html"], 2), ["/*"]);
  assert.deepEqual(planInvalidation(["a/index.html"], 3).length, 3);
});

Deno.test("encodeSegment() leaves the sub-delimiters CloudFront wants literal", () => {
  assert.equal(encodeSegment("a+b$c,d;e:f@g=h&i!j'k(l)m"), "a+b$c,d;e:f@g=h&i!j'k(l)m");
  assert.deepEqual(cdnPathsFor("c++/notes (1).html"), ["/c++/notes%20(1).html"]);
});

Deno.test("encodeSegment() encodes controls, space, non-ASCII, RFC 1738 unsafe characters and ?", () => {
  assert.equal(encodeSegment("a b\tc\u007f"), "a%20b%09c%7F");
  assert.equal(encodeSegment('<>"#%{}|\\^~[]`'), "%3C%3E%22%23%25%7B%7D%7C%5C%5E%7E%5B%5D%60");
  assert.equal(encodeSegment("why?.html"), "why%3F.html");
  assert.equal(encodeSegment("日本"), "%E6%97%A5%E6%9C%AC");
  assert.equal(encodeSegment("😀"), "%F0%9F%98%80");
});

Deno.test("encodeSegment() encodes * so an object named a* is never a wildcard", () => {
  assert.equal(encodeSegment("a*"), "a%2A");
  assert.deepEqual(planInvalidation(["files/a*"], 10), ["/files/a%2A"]);
});
