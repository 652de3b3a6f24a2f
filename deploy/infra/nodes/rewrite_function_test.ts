import assert from "node:assert/strict";
import { previewFacts } from "./_test_site.ts";
import { previewRouterCode } from "./router_function.ts";
import { resolveSiteConfig } from "../../config/site_config.ts";
import type { SiteFacts } from "../resource.ts";
import {
  isViewerResponse,
  loadViewerRequestHandler,
  viewerRequestEvent,
} from "../../../tests/support/cloudfront_function.ts";
import {
  REWRITE_RUNTIME,
  rewriteFunctionCode,
  rewriteFunctionDrift,
  rewriteFunctionName,
  rewriteFunctionSpec,
} from "./rewrite_function.ts";

interface ViewerRequest {
  method: string;
  uri: string;
  querystring: Record<string, { value: string }>;
  headers: Record<string, { value: string }>;
}
type Handler = (event: { version: string; request: ViewerRequest }) => ViewerRequest;

/**
 * Loads the generated source as CloudFront would run it: the same text, with only an export
 * of `handler` appended so the module system can hand it over.
 */
async function load(code: string): Promise<Handler> {
  const url = `data:text/javascript;charset=utf-8,${
    encodeURIComponent(`${code}\nexport { handler };\n`)
  }`;
  const mod: { handler: Handler } = await import(url);
  return mod.handler;
}

function event(uri: string): { version: string; request: ViewerRequest } {
  return {
    version: "1.0",
    request: {
      method: "GET",
      uri,
      querystring: { page: { value: "2" } },
      headers: { host: { value: "d111.cloudfront.net" } },
    },
  };
}

function facts(raw: Record<string, unknown> = {}): SiteFacts {
  const result = resolveSiteConfig({ siteName: "blog", ...raw }, {
    env: "production",
    repoDir: "/src/blog",
    accountId: "123456789012",
  });
  if (!("config" in result)) throw new Error(JSON.stringify(result.errors));
  return {
    env: "production",
    accountId: "123456789012",
    config: result.config,
    bucket: "production-blog-123456789012",
    builderLogGroup: "/aws/microvms/production-blog-builder",
    cdnLogGroup: "/blog/production/cloudfront",
    deployRole: "production-blog-gh",
    tags: { app: result.config.app, environment: "production" },
  };
}

Deno.test("rewrite function: directory URLs get the index document, files pass through", async () => {
  const handler = await load(rewriteFunctionCode("index.html"));
  const cases: [string, string][] = [
    ["/", "/index.html"],
    ["/blog/", "/blog/index.html"],
    ["/blog/2024/hello-world/", "/blog/2024/hello-world/index.html"],
    ["/about", "/about/index.html"],
    ["/docs/getting-started", "/docs/getting-started/index.html"],
    ["/index.html", "/index.html"],
    ["/assets/app.3f2a.css", "/assets/app.3f2a.css"],
    ["/feed.xml", "/feed.xml"],
    ["/404.html", "/404.html"],
    ["/.well-known/security.txt", "/.well-known/security.txt"],
    // A dot in an earlier segment does not make the last one a file.
    ["/v1.2/changelog", "/v1.2/changelog/index.html"],
    ["/v1.2/", "/v1.2/index.html"],
  ];
  for (const [uri, want] of cases) {
    const out = handler(event(uri));
    assert.equal(out.uri, want, uri);
  }
});

Deno.test("rewrite function with spa: client routes get the shell, files pass through (a missing one is a 404)", async () => {
  // The generated text, run as CloudFront runs it, on cloudfront-js-2.0 viewer-request events.
  const handler = await loadViewerRequestHandler(rewriteFunctionCode("index.html", true));
  const cases: [string, string][] = [
    ["/", "/index.html"],
    ["/dashboard", "/index.html"],
    ["/dashboard/settings", "/index.html"],
    ["/team/", "/index.html"],
    ["/v1.2/changelog", "/index.html"],
    // A stale tab's chunk: left as asked, so S3 answers 404 instead of the shell's HTML.
    ["/assets/app.3f2a.js", "/assets/app.3f2a.js"],
    ["/assets/app.3f2a.css", "/assets/app.3f2a.css"],
    ["/img/logo.png", "/img/logo.png"],
    ["/robots.txt", "/robots.txt"],
    ["/index.html", "/index.html"],
    ["/404.html", "/404.html"],
  ];
  for (const [uri, want] of cases) {
    const event = viewerRequestEvent(`https://d111111abcdef8.cloudfront.net${uri}?tab=2`);
    const out = handler(event);
    assert.ok(!isViewerResponse(out), uri);
    assert.equal(out.uri, want, uri);
    assert.deepEqual(out.querystring, { tab: { value: "2" } }, uri);
  }
  const home = await loadViewerRequestHandler(rewriteFunctionCode("home.htm", true));
  assert.equal(
    (home(viewerRequestEvent("https://x.example/a/b")) as { uri: string }).uri,
    "/home.htm",
  );
});

Deno.test("rewriteFunctionSpec() follows spa: its code sends client routes to the shell", () => {
  const spec = rewriteFunctionSpec(facts({ spa: true }));
  assert.equal(spec.code, rewriteFunctionCode("index.html", true));
  assert.notEqual(spec.code, rewriteFunctionSpec(facts()).code);
  assert.match(spec.comment, /client routes to \/index\.html/);
  assert.deepEqual(
    rewriteFunctionDrift({ runtime: spec.runtime, code: rewriteFunctionCode("index.html") }, spec),
    [
      "code differs from this version's rewrite rules",
    ],
  );
});

Deno.test("rewrite function: the rest of the request (method, query, headers) is untouched", async () => {
  const handler = await load(rewriteFunctionCode("index.html"));
  const before = event("/blog/");
  const out = handler(structuredClone(before));
  assert.deepEqual({ ...out, uri: before.request.uri }, before.request);
});

Deno.test("rewrite function: the index document follows defaultRootObject, quoted safely", async () => {
  const home = await load(rewriteFunctionCode("home.htm"));
  assert.equal(home(event("/")).uri, "/home.htm");
  assert.equal(home(event("/about")).uri, "/about/home.htm");
  const odd = 'in"dex\u2028.html';
  const quoted = await load(rewriteFunctionCode(odd));
  assert.equal(quoted(event("/a/")).uri, `/a/${odd}`);
  assert.ok(!rewriteFunctionCode(odd).includes("\u2028"));
});

Deno.test("rewrite function: the source fits CloudFront Functions' limits and needs no modules", () => {
  for (const code of [rewriteFunctionCode("index.html"), rewriteFunctionCode("index.html", true)]) {
    assert.ok(new TextEncoder().encode(code).length < 10_240);
    assert.match(code, /^function handler\(event\) \{$/m);
    assert.doesNotMatch(code, /\b(import|export|require|async|await)\b/);
  }
});

Deno.test("rewriteFunctionSpec() names the function <env>-<siteName>-rewrite and pins the runtime", () => {
  const spec = rewriteFunctionSpec(facts({ defaultRootObject: "home.html" }));
  assert.equal(spec.name, "production-blog-rewrite");
  assert.equal(rewriteFunctionName(facts()), "production-blog-rewrite");
  assert.match(spec.name, /^[a-zA-Z0-9-_]{1,64}$/);
  assert.equal(spec.runtime, REWRITE_RUNTIME);
  assert.equal(spec.runtime, "cloudfront-js-2.0");
  assert.equal(spec.code, rewriteFunctionCode("home.html"));
  assert.match(spec.comment, /production-blog-123456789012/);
});

Deno.test("rewriteFunctionDrift() compares the LIVE stage: unpublished, runtime, code", () => {
  const spec = rewriteFunctionSpec(facts());
  assert.deepEqual(rewriteFunctionDrift({ runtime: spec.runtime, code: spec.code }, spec), []);
  assert.deepEqual(rewriteFunctionDrift(undefined, spec), ["not published to LIVE"]);
  assert.deepEqual(
    rewriteFunctionDrift({ runtime: "cloudfront-js-1.0", code: "function handler(e){}" }, spec),
    [
      "runtime cloudfront-js-1.0, want cloudfront-js-2.0",
      "code differs from this version's rewrite rules",
    ],
  );
});

Deno.test("rewriteFunctionSpec() for the preview stack is the router preview-<siteName>-router", () => {
  const spec = rewriteFunctionSpec(previewFacts());
  assert.equal(spec.name, "preview-blog-router");
  assert.equal(spec.runtime, "cloudfront-js-2.0");
  assert.equal(spec.code, previewRouterCode("preview.example.com", "index.html"));
  assert.match(spec.comment, /preview-blog-123456789012/);
});
