import assert from "node:assert/strict";
import { OAuthError } from "../errors.ts";
import { createRouter, guardedGroup, guardRoutes, pathOf, UNMATCHED } from "./router.ts";

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

Deno.test("createRouter() runs a guarded group's guard before its routes, its 404 and its 405, and only there", async () => {
  const guarded: string[] = [];
  const groupMatch = createRouter([{ method: "GET", path: "/health", handler: ok("health") }], [
    guardedGroup("", (r) => {
      guarded.push(pathOf(r.url));
      if (r.headers.get("authorization") !== "yes") return Promise.reject(new Error("refused"));
      return Promise.resolve({ who: "alice" });
    }, [{
      method: "GET",
      path: "/api/{id}",
      handler: (_r, _i, p, ctx) => new Response(`${ctx.who}:${p.id}`),
    }]),
    { prefix: "/ui", routes: [], headers: { "x-frame-options": "DENY" } },
  ]);
  const call = async (method: string, path: string, headers: Record<string, string> = {}) => {
    const r = new Request(`http://x${path}`, { method, headers });
    const m = groupMatch(r);
    try {
      return { m, body: await (await m.handler(r, info, m.params)).text() };
    } catch (err) {
      return { m, body: (err as Error).message };
    }
  };
  assert.equal((await call("GET", "/api/1", { authorization: "yes" })).body, "alice:1");
  assert.equal((await call("GET", "/api/1")).body, "refused");
  assert.equal((await call("GET", "/nope")).body, "refused");
  assert.equal((await call("DELETE", "/api/1")).body, "refused");
  assert.equal((await call("DELETE", "/api/1", { authorization: "yes" })).m.route, UNMATCHED);
  assert.equal((await call("GET", "/health")).body, "health");
  assert.equal((await call("POST", "/health")).body, "Use GET or HEAD on this path");
  const ui = await call("GET", "/ui/x");
  assert.equal(ui.body, "No such endpoint");
  assert.deepEqual(ui.m.headers, { "x-frame-options": "DENY" });
  assert.deepEqual(guarded, ["/api/1", "/api/1", "/nope", "/api/1", "/api/1"]);
});

Deno.test("guardRoutes() answers the guard's refusal and a route's error by recover, with the context it had", async () => {
  const seen: Array<[string, string | undefined]> = [];
  const routes = guardRoutes<string>(
    (req) => {
      const who = req.headers.get("x-who");
      return who === null ? Promise.reject(new Error("no one")) : Promise.resolve(who);
    },
    [
      { method: "GET", path: "/ok", handler: (_req, _info, _p, who) => new Response(who) },
      { method: "GET", path: "/fail", handler: () => Promise.reject(new Error("broke")) },
    ],
    (err, who) => {
      seen.push([(err as Error).message, who]);
      return new Response(null, { status: 418 });
    },
  );
  const route = createRouter(routes);
  const call = async (path: string, headers: Record<string, string> = {}) => {
    const r = new Request(`http://x${path}`, { headers });
    const m = route(r);
    return await m.handler(r, info, m.params);
  };
  assert.equal(await (await call("/ok", { "x-who": "ada" })).text(), "ada");
  assert.equal((await call("/ok")).status, 418);
  assert.equal((await call("/fail", { "x-who": "ada" })).status, 418);
  assert.deepEqual(seen, [["no one", undefined], ["broke", "ada"]]);
});
