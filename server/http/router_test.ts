import assert from "node:assert/strict";
import { OAuthError } from "../errors.ts";
import { createRouter, pathOf, UNMATCHED } from "./router.ts";

const info = { remoteAddr: { hostname: "127.0.0.1", port: 1 } };
const ok = (tag: string) => () => new Response(tag);
const match = createRouter([
  { method: "GET", path: "/users", handler: ok("list") },
  { method: "GET", path: "/users/{id}", handler: (_r, _i, p) => new Response(p.id) },
  { method: "PATCH", path: "/users/{id}", handler: ok("patch") },
  { method: "GET", path: "/users/{id}/claims", handler: (_r, _i, p) => new Response(`c:${p.id}`) },
]);
const req = (method: string, path: string) => new Request(`http://x${path}`, { method });

Deno.test("createRouter() matches exact paths and {param} segments, labelled by pattern", async () => {
  const m = match(req("GET", "/users/usr_1?x=1"));
  assert.equal(m.route, "GET /users/{id}");
  assert.equal(await (await m.handler(req("GET", "/"), info, m.params)).text(), "usr_1");
  const c = match(req("GET", "/users/a%20b/claims"));
  assert.equal(c.route, "GET /users/{id}/claims");
  assert.equal(c.params.id, "a b");
  assert.equal(match(req("HEAD", "/users")).route, "HEAD /users");
});

Deno.test("createRouter() answers unknown paths 404 and other methods 405 with Allow, labelled unmatched", () => {
  for (const path of ["/nope", "/users/", "/users/a/b", "/users/a/claims/x"]) {
    const m = match(req("GET", path));
    assert.equal(m.route, UNMATCHED);
    assert.throws(
      () => m.handler(req("GET", path), info, m.params),
      (e: OAuthError) => e.status === 404,
    );
  }
  const m = match(req("DELETE", "/users/1"));
  assert.equal(m.route, UNMATCHED);
  assert.throws(
    () => m.handler(req("DELETE", "/users/1"), info, m.params),
    (e: OAuthError) => e.status === 405 && e.headers.Allow === "GET, HEAD, PATCH",
  );
});

Deno.test("pathOf() agrees with the URL parser, dot segments included", () => {
  for (
    const url of [
      "http://h:1/token",
      "http://h/a/b?c=/d#e",
      "http://h",
      "http://h/a/../token",
      "http://h/%7Ex",
    ]
  ) {
    assert.equal(pathOf(url), new URL(url).pathname, url);
  }
});

Deno.test("createRouter() reports the request's path, matched or not", () => {
  assert.equal(match(req("GET", "/users?x=1")).path, "/users");
  assert.equal(match(req("GET", "/users/usr_1")).path, "/users/usr_1");
  assert.equal(match(req("DELETE", "/users")).path, "/users");
  assert.equal(match(req("GET", "/a/../nope")).path, "/nope");
  assert.equal(match(req("HEAD", "/users/u/claims")).route, "HEAD /users/{id}/claims");
});
