import assert from "node:assert/strict";
import {
  isViewerResponse,
  loadViewerRequestHandler,
  type ViewerRequest,
  viewerRequestEvent,
} from "../../../tests/support/cloudfront_function.ts";
import { previewSitePrefix } from "../../state/bucket_layout.ts";
import { liveRouterAuth, previewRouterCode } from "./router_function.ts";
import { basicToken, passwordSource, previewAuth } from "../../preview/auth.ts";

const DOMAIN = "preview.example.com";

async function route(url: string, host?: string): Promise<string | number> {
  const handler = await loadViewerRequestHandler(previewRouterCode(DOMAIN, "index.html"));
  const out = handler(viewerRequestEvent(url, host));
  return isViewerResponse(out) ? out.statusCode : out.uri;
}

Deno.test("router: the first label of Host is the preview id; the URI moves under previews/<id>/site", async () => {
  const cases: [string, string][] = [
    ["https://pr-42.preview.example.com/", "/previews/pr-42/site/index.html"],
    ["https://pr-42.preview.example.com/blog/", "/previews/pr-42/site/blog/index.html"],
    ["https://pr-42.preview.example.com/blog", "/previews/pr-42/site/blog/index.html"],
    ["https://pr-42.preview.example.com/app.js", "/previews/pr-42/site/app.js"],
    [
      "https://pr-42.preview.example.com/_astro/x.Bx8sK2mQ.css",
      "/previews/pr-42/site/_astro/x.Bx8sK2mQ.css",
    ],
    [
      "https://pr-42.preview.example.com/v1.2/changelog",
      "/previews/pr-42/site/v1.2/changelog/index.html",
    ],
    ["https://pr-42.preview.example.com/blog/?page=2&q=a", "/previews/pr-42/site/blog/index.html"],
    ["https://pr-42.preview.example.com/search?q=x", "/previews/pr-42/site/search/index.html"],
    ["https://pr-7.preview.example.com/app.js?v=3", "/previews/pr-7/site/app.js"],
  ];
  for (const [url, want] of cases) assert.equal(await route(url), want, url);
});

Deno.test("router: the rewritten URI is exactly the preview's S3 key, one preview never reaching another", async () => {
  const uri = await route("https://pr-4.preview.example.com/index.html");
  assert.equal(uri, `/${previewSitePrefix("pr-4")}index.html`);
  assert.ok(!String(uri).startsWith(`/${previewSitePrefix("pr-42")}`));
});

Deno.test("router: Host in upper case, with a port or a trailing dot names the same preview", async () => {
  const want = "/previews/pr-42/site/blog/index.html";
  for (
    const host of [
      "PR-42.Preview.Example.COM",
      "pr-42.preview.example.com:443",
      "pr-42.preview.example.com.",
    ]
  ) {
    assert.equal(await route("https://x.invalid/blog/", host), want, host);
  }
});

Deno.test("router: a host that is not one valid label under the preview domain gets 404", async () => {
  const hosts = [
    "a.b.preview.example.com", // several labels before the domain
    "preview.example.com", // the bare domain
    "pr-42.other.example.com", // another domain
    "pr-42.preview.example.com.evil.test",
    "xpreview.example.com",
    "-pr.preview.example.com",
    "pr_42.preview.example.com",
    `${"a".repeat(64)}.preview.example.com`,
    "d111111abcdef8.cloudfront.net",
  ];
  for (const host of hosts) assert.equal(await route("https://x.invalid/", host), 404, host);
  const handler = await loadViewerRequestHandler(previewRouterCode(DOMAIN, "index.html"));
  const event = viewerRequestEvent("https://x.invalid/");
  delete (event.request.headers as Partial<ViewerRequest["headers"]>).host;
  assert.equal((handler(event) as { statusCode: number }).statusCode, 404);
});

Deno.test("router: method, query string, headers and cookies pass through untouched", async () => {
  const handler = await loadViewerRequestHandler(previewRouterCode(DOMAIN, "index.html"));
  const before = viewerRequestEvent("https://pr-1.preview.example.com/a/?x=1&y=2");
  before.request.cookies = { session: { value: "s" } };
  const out = handler(structuredClone(before)) as ViewerRequest;
  assert.deepEqual({ ...out, uri: before.request.uri }, before.request);
  assert.deepEqual(out.querystring, { x: { value: "1" }, y: { value: "2" } });
});

Deno.test("router: the index document follows defaultRootObject and the domain is quoted safely", async () => {
  const home = await loadViewerRequestHandler(previewRouterCode(DOMAIN, "home.htm"));
  const out = home(viewerRequestEvent("https://pr-1.preview.example.com/")) as ViewerRequest;
  assert.equal(out.uri, "/previews/pr-1/site/home.htm");
  const odd = await loadViewerRequestHandler(previewRouterCode('a"b\u2028.test', "index.html"));
  const got = odd(viewerRequestEvent("https://x.invalid/", 'pr-1.a"b\u2028.test'));
  assert.equal((got as ViewerRequest).uri, "/previews/pr-1/site/index.html");
  assert.ok(!previewRouterCode('a"b\u2028.test', "index.html").includes("\u2028"));
});

Deno.test("router: the source fits CloudFront Functions' limits and needs no modules", () => {
  const code = previewRouterCode(DOMAIN, "index.html");
  assert.ok(new TextEncoder().encode(code).length < 10_240);
  assert.match(code, /^function handler\(event\) \{$/m);
  assert.doesNotMatch(code, /\b(import|export|require|async|await|let|const)\b|=>/);
});

const PASSWORD = "correct horse battery staple";
const AUTH = previewAuth(PASSWORD, "preview-blog-123456789012");

async function privateRoute(url: string, authorization?: string) {
  const handler = await loadViewerRequestHandler(previewRouterCode(DOMAIN, "index.html", AUTH));
  const event = viewerRequestEvent(url);
  if (authorization !== undefined) event.request.headers.authorization = { value: authorization };
  return handler(event);
}

Deno.test("router with previews.password: no or wrong credentials are 401 with a Basic challenge", async () => {
  for (
    const given of [
      undefined,
      "",
      `Basic ${basicToken("wrong")}`,
      `Bearer ${basicToken(PASSWORD)}`,
      `Basic ${btoa(`someone:${PASSWORD}`)}`,
    ]
  ) {
    const out = await privateRoute("https://pr-42.preview.example.com/", given);
    assert.ok(isViewerResponse(out), `${given} was let through`);
    assert.equal(out.statusCode, 401);
    const headers = (out as unknown as { headers: Record<string, { value: string }> }).headers;
    assert.equal(headers["www-authenticate"]!.value, 'Basic realm="preview", charset="UTF-8"');
    assert.equal(headers["cache-control"]!.value, "no-store");
  }
});

Deno.test("router with previews.password: the right credentials reach the preview; any scheme case, a bad host is still 404", async () => {
  for (const scheme of ["Basic", "basic", "BASIC"]) {
    const out = await privateRoute(
      "https://pr-42.preview.example.com/blog/",
      `${scheme} ${basicToken(PASSWORD)}`,
    );
    assert.ok(!isViewerResponse(out));
    assert.equal((out as ViewerRequest).uri, "/previews/pr-42/site/blog/index.html");
  }
  const stranger = await privateRoute("https://evil.example.com/", `Basic ${basicToken(PASSWORD)}`);
  assert.ok(isViewerResponse(stranger) && stranger.statusCode === 404);
});

Deno.test("router with previews.password: the code holds a salted hash, never the password; the live check is read back", () => {
  const code = previewRouterCode(DOMAIN, "index.html", AUTH);
  assert.ok(!code.includes(PASSWORD));
  assert.ok(!code.includes(basicToken(PASSWORD)));
  assert.match(code, new RegExp(AUTH.hash));
  assert.deepEqual(liveRouterAuth(code), AUTH);
  assert.equal(liveRouterAuth(previewRouterCode(DOMAIN, "index.html")), undefined);
  assert.notEqual(previewAuth(PASSWORD, "preview-other-123456789012").hash, AUTH.hash);
});

Deno.test("passwordSource() reads ${VAR} as an environment variable, anything else as a secret name", () => {
  assert.deepEqual(passwordSource("${PREVIEW_PASSWORD}"), { env: "PREVIEW_PASSWORD" });
  assert.deepEqual(passwordSource("preview/blog/password"), { secret: "preview/blog/password" });
});
