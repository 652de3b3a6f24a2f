import assert from "node:assert/strict";
import {
  isViewerResponse,
  loadViewerRequestHandler,
  type ViewerRequest,
  viewerRequestEvent,
} from "../../tests/support/cloudfront_function.ts";
import { rewriteFunctionCode } from "../infra/nodes/rewrite_function.ts";
import {
  headersFunctionCode,
  NOT_FOUND_MARK,
  patternSource,
  rulesSection,
  shadowedPaths,
} from "./function_rules.ts";
import type { RedirectRule } from "../config/route_rules.ts";
import { rule, RULE_KEYS as KEYS, RULE_KINDS } from "./_test_rules.ts";

const RULES: readonly RedirectRule[] = RULE_KINDS;

async function run(url: string, rules = RULES) {
  const code = rewriteFunctionCode(
    "index.html",
    false,
    rulesSection(rules, shadowedPaths(rules, KEYS, "index.html")),
  );
  return (await loadViewerRequestHandler(code))(viewerRequestEvent(url));
}

async function redirected(url: string): Promise<[number, string]> {
  const out = await run(url);
  assert.ok(isViewerResponse(out), `${url} was not redirected`);
  const headers = (out as unknown as { headers: Record<string, { value: string }> }).headers;
  return [out.statusCode, headers.location!.value];
}

async function served(url: string): Promise<ViewerRequest> {
  const out = await run(url);
  assert.ok(!isViewerResponse(out), `${url} was answered ${JSON.stringify(out)}`);
  return out;
}

Deno.test("rules function: a splat redirect carries the rest of the path and the query string", async () => {
  assert.deepEqual(await redirected("https://s.example/blog/2024/hello?page=2&tag=a"), [
    301,
    "/posts/2024/hello?page=2&tag=a",
  ]);
  assert.deepEqual(await redirected("https://s.example/blog"), [301, "/posts/"]);
});

Deno.test("rules function: placeholders fill the target, whose own query string gets the request's appended", async () => {
  assert.deepEqual(await redirected("https://s.example/news/2023/launch?x=1"), [
    302,
    "/archive/2023/launch?from=news&x=1",
  ]);
  // One segment only: a deeper path does not match the rule.
  const deeper = await served("https://s.example/news/2023/launch/more");
  assert.equal(deeper.uri, "/news/2023/launch/more/index.html");
});

Deno.test("rules function: a 200 rule rewrites the URI (URL unchanged), then the index rewrite runs", async () => {
  const out = await served("https://s.example/app/settings/profile?tab=2");
  assert.equal(out.uri, "/app/index.html");
  assert.deepEqual(out.querystring, { tab: { value: "2" } });
});

Deno.test("rules function: a 404 rule serves its page for a missing path under its subtree, marked for a 404 status", async () => {
  const missing = await served("https://s.example/docs/nope.html");
  assert.equal(missing.uri, "/docs/404.html");
  assert.deepEqual(missing.headers[NOT_FOUND_MARK], { value: "1" });
  const present = await served("https://s.example/docs/intro.html");
  assert.equal(present.uri, "/docs/intro.html", "a file at the path shadows the rule");
  assert.equal(present.headers[NOT_FOUND_MARK], undefined);
});

Deno.test("rules function: a rule without force leaves an existing page alone; force applies anyway", async () => {
  const about = await served("https://s.example/about");
  assert.equal(about.uri, "/about/index.html", "about/index.html exists: /about is served");
  assert.deepEqual(await redirected("https://s.example/"), [302, "/en/"]);
});

Deno.test("rules function: absolute targets, and paths no rule matches fall through to the index rewrite", async () => {
  assert.deepEqual(await redirected("https://s.example/gone?a=b"), [
    307,
    "https://example.com/moved/?a=b",
  ]);
  assert.equal((await served("https://s.example/contact")).uri, "/contact/index.html");
});

Deno.test("rules function: no rules generate the rewrite function unchanged", () => {
  assert.equal(
    rewriteFunctionCode("index.html", false, rulesSection([], [])),
    rewriteFunctionCode("index.html"),
  );
});

Deno.test("patternSource() escapes literals and anchors the pattern", () => {
  const re = new RegExp(patternSource("/a.b/:id/*"));
  assert.ok(re.test("/a.b/7/x/y"));
  assert.ok(!re.test("/aXb/7/x"));
  assert.ok(new RegExp(patternSource("/about/")).test("/about"));
});

Deno.test("headers function: adds matching rules' values and answers 404 for a request a 404 rule marked", async () => {
  const code = headersFunctionCode([
    { for: "/*", values: { "X-Frame-Options": "DENY" } },
    { for: "/assets/*", values: { "Cache-Control": "public, max-age=31536000, immutable" } },
  ]);
  const url = `data:text/javascript;charset=utf-8,${
    encodeURIComponent(`${code}\nexport { handler };\n`)
  }`;
  type Res = { statusCode: number; headers: Record<string, { value: string }> };
  const { handler } = await import(url) as {
    handler: (e: { request: ViewerRequest; response: Res }) => Res;
  };
  const request = (uri: string, marked = false): ViewerRequest => ({
    method: "GET",
    uri,
    querystring: {},
    headers: marked ? { [NOT_FOUND_MARK]: { value: "1" } } : {},
    cookies: {},
  });
  const asset = handler({
    request: request("/assets/a.css"),
    response: { statusCode: 200, headers: {} },
  });
  assert.deepEqual(asset.headers, {
    "x-frame-options": { value: "DENY" },
    "cache-control": { value: "public, max-age=31536000, immutable" },
  });
  const page = handler({
    request: request("/docs/404.html", true),
    response: { statusCode: 200, headers: {} },
  });
  assert.equal(page.statusCode, 404);
  assert.deepEqual(page.headers, { "x-frame-options": { value: "DENY" } });
});

Deno.test("rules function: 100 splat rules of typical length fit CloudFront's 10 KB code limit", () => {
  const rules = Array.from(
    { length: 100 },
    (_, i) => rule(`/old/section-${i}/*`, `/new/section-${i}/:splat`, 301, true),
  );
  const code = rewriteFunctionCode("index.html", false, rulesSection(rules, []));
  const bytes = new TextEncoder().encode(code).byteLength;
  assert.ok(bytes <= 10_240, `${bytes} bytes`);
});

Deno.test("rules function: a rewrite target's dot segments are resolved before it reaches the edge", async () => {
  const rules: RedirectRule[] = [rule("/x", "/docs/./old/%2e%2e/guide.html", 200)];
  const out = await run("https://s.example/x", rules);
  assert.ok(!isViewerResponse(out));
  assert.equal(out.uri, "/docs/guide.html");
});
