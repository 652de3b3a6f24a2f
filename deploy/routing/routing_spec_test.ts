import assert from "node:assert/strict";
import {
  isViewerResponse,
  loadStoreViewerRequestHandler,
  loadViewerRequestHandler,
  type StoreReads,
  type ViewerRequest,
  viewerRequestEvent,
} from "../../tests/support/cloudfront_function.ts";
import type { RedirectRule } from "../config/route_rules.ts";
import { rule, RULE_KEYS, RULE_KINDS } from "./_test_rules.ts";
import { DeployError } from "../errors.ts";
import {
  NOT_FOUND_MARK,
  STORE_KEY_LIMIT,
  STORE_VALUE_LIMIT,
  storeEntries,
  storeKeyOf,
} from "./function_rules.ts";
import { FUNCTION_CODE_LIMIT, routingSpec, splitHeaderRules } from "./routing_spec.ts";

const KINDS = RULE_KINDS;
const KEYS = RULE_KEYS;
const OPTIONS = { indexDocument: "index.html", spa: false, hasStore: true };

/** 2,000 rules: fillers of both shapes around every kind, and a later rule the splat shadows. */
function twoThousand(): RedirectRule[] {
  const fill = (n: number, at: number) =>
    Array.from(
      { length: n },
      (_, i) =>
        i % 2 === 0
          ? rule(`/old/page-${at + i}`, `/new/page-${at + i}`)
          : rule(`/legacy/${at + i}/:slug`, `/moved/${at + i}/:slug`, 302),
    );
  const rules = [...fill(1000, 0), ...KINDS, rule("/blog/special", "/special"), ...fill(992, 1000)];
  assert.equal(rules.length, 2000);
  return rules;
}

async function storeRun(url: string, reads?: StoreReads) {
  const spec = routingSpec({ redirects: twoThousand(), headers: [] }, KEYS, OPTIONS);
  const handler = await loadStoreViewerRequestHandler(
    spec.viewerRequestCode,
    spec.storeEntries,
    reads,
  );
  return await handler(viewerRequestEvent(url));
}

async function redirected(url: string): Promise<[number, string]> {
  const out = await storeRun(url);
  assert.ok(isViewerResponse(out), `${url} was not redirected: ${JSON.stringify(out)}`);
  const headers = (out as unknown as { headers: Record<string, { value: string }> }).headers;
  return [out.statusCode, headers.location!.value];
}

async function served(url: string): Promise<ViewerRequest> {
  const out = await storeRun(url);
  assert.ok(!isViewerResponse(out), `${url} was answered ${JSON.stringify(out)}`);
  return out;
}

Deno.test("routingSpec() keeps a small table inline and moves 2,000 rules to the store, the code within 10 KB", () => {
  const small = routingSpec({ redirects: KINDS, headers: [] }, KEYS, OPTIONS);
  assert.equal(small.table, "inline");
  assert.equal(small.storeEntries.size, 0);
  const big = routingSpec({ redirects: twoThousand(), headers: [] }, KEYS, OPTIONS);
  assert.equal(big.table, "store");
  assert.ok(new TextEncoder().encode(big.viewerRequestCode).byteLength <= FUNCTION_CODE_LIMIT);
  for (const [key, value] of big.storeEntries) {
    assert.ok(new TextEncoder().encode(key).byteLength <= STORE_KEY_LIMIT, key);
    assert.ok(new TextEncoder().encode(value).byteLength <= STORE_VALUE_LIMIT, key);
  }
});

Deno.test("routingSpec() past 10 KB without a store is rules_too_large, naming bootstrap", () => {
  assert.throws(
    () =>
      routingSpec({ redirects: twoThousand(), headers: [] }, KEYS, { ...OPTIONS, hasStore: false }),
    (err: unknown) =>
      err instanceof DeployError && err.code === "rules_too_large" &&
      /bootstrap/.test(err.hint ?? ""),
  );
});

Deno.test("store-backed rules (2,000): splats, placeholders and query strings redirect as inline ones do", async () => {
  assert.deepEqual(await redirected("https://s.example/blog/2024/hello?page=2&tag=a"), [
    301,
    "/posts/2024/hello?page=2&tag=a",
  ]);
  assert.deepEqual(await redirected("https://s.example/blog"), [301, "/posts/"]);
  assert.deepEqual(await redirected("https://s.example/news/2023/launch?x=1"), [
    302,
    "/archive/2023/launch?from=news&x=1",
  ]);
  assert.deepEqual(await redirected("https://s.example/old/page-1990"), [301, "/new/page-1990"]);
  assert.deepEqual(await redirected("https://s.example/old/page-10/"), [301, "/new/page-10"]);
  assert.deepEqual(await redirected("https://s.example/legacy/1991/x"), [302, "/moved/1991/x"]);
  assert.deepEqual(await redirected("https://s.example/gone?a=b"), [
    307,
    "https://example.com/moved/?a=b",
  ]);
});

Deno.test("store-backed rules (2,000): the first matching rule wins across store keys", async () => {
  // `/blog/*` comes before `/blog/special`, though they are filed under different keys.
  assert.deepEqual(await redirected("https://s.example/blog/special"), [301, "/posts/special"]);
});

Deno.test("store-backed rules (2,000): 200 rewrites, 404 subtrees, force, and existing pages", async () => {
  const app = await served("https://s.example/app/settings/profile?tab=2");
  assert.equal(app.uri, "/app/index.html");
  assert.deepEqual(app.querystring, { tab: { value: "2" } });
  const missing = await served("https://s.example/docs/nope.html");
  assert.equal(missing.uri, "/docs/404.html");
  assert.deepEqual(missing.headers[NOT_FOUND_MARK], { value: "1" });
  const present = await served("https://s.example/docs/intro.html");
  assert.equal(present.uri, "/docs/intro.html", "a file at the path shadows the rule");
  assert.equal((await served("https://s.example/about")).uri, "/about/index.html");
  assert.deepEqual(await redirected("https://s.example/"), [302, "/en/"]);
  assert.equal((await served("https://s.example/contact")).uri, "/contact/index.html");
});

Deno.test("store-backed rules: a request reads a handful of keys, not the table", async () => {
  const reads = { reads: 0 };
  await storeRun("https://s.example/a/b/c/d", reads);
  assert.ok(reads.reads <= 6, `${reads.reads} reads`);
});

Deno.test("store-backed and inline tables answer alike for the same rules", async () => {
  const inline = await loadViewerRequestHandler(
    routingSpec({ redirects: KINDS, headers: [] }, KEYS, OPTIONS).viewerRequestCode,
  );
  for (const path of ["/blog/x", "/news/1/a", "/app/z", "/docs/q", "/about", "/", "/gone", "/z"]) {
    const url = `https://s.example${path}?q=1`;
    assert.deepEqual(await storeRun(url), inline(viewerRequestEvent(url)), path);
  }
});

Deno.test("storeEntries() spills a key's rules past 1 KB into continuation keys", () => {
  const many = Array.from(
    { length: 60 },
    (_, i) => rule(`/shop/:item/v${i}`, `/store/:item/v${i}`),
  );
  const entries = storeEntries(many, []);
  assert.ok(entries.has("~/shop/#1"), [...entries.keys()].join(" "));
  const first = JSON.parse(entries.get("~/shop/")!);
  const parts = 1 + first.n;
  let rows = 0;
  for (let p = 0; p < parts; p++) {
    rows += JSON.parse(entries.get(p === 0 ? "~/shop/" : `~/shop/#${p}`)!).r.length;
  }
  assert.equal(rows, 60);
});

Deno.test("storeKeyOf() files literal paths exactly and patterns under their literal directories", () => {
  assert.equal(storeKeyOf("/about/"), "=/about");
  assert.equal(storeKeyOf("/"), "=/");
  assert.equal(storeKeyOf("/blog/*"), "~/blog/");
  assert.equal(storeKeyOf("/*"), "~/");
  assert.equal(storeKeyOf("/news/:year/:slug"), "~/news/");
  assert.equal(storeKeyOf(`/${"x".repeat(600)}`), "~/");
});

Deno.test("splitHeaderRules() puts site-wide values in the policy, per-path and security headers in the function", () => {
  const { policy, functionRules } = splitHeaderRules([
    {
      for: "/*",
      values: { "X-Robots-Tag": "noindex", "Content-Security-Policy": "default-src 'self'" },
    },
    { for: "/*", values: { "Cache-Control": "no-cache" } },
    { for: "/assets/*", values: { "Cache-Control": "immutable" } },
  ]);
  assert.deepEqual(policy, { "X-Robots-Tag": "noindex" });
  assert.deepEqual(functionRules, [
    { for: "/*", values: { "Content-Security-Policy": "default-src 'self'" } },
    { for: "/*", values: { "Cache-Control": "no-cache" } },
    { for: "/assets/*", values: { "Cache-Control": "immutable" } },
  ]);
});

Deno.test("routingSpec() needs a viewer-response function only for per-path headers or 404 rules", () => {
  const none = routingSpec(
    {
      redirects: [rule("/a", "/b")],
      headers: [{ for: "/*", values: { "X-A": "1" } }],
    },
    [],
    OPTIONS,
  );
  assert.equal(none.viewerResponseCode, undefined);
  assert.deepEqual(none.policyHeaders, { "X-A": "1" });
  const notFound = routingSpec(
    { redirects: [rule("/d/*", "/d/404.html", 404)], headers: [] },
    [],
    OPTIONS,
  );
  assert.ok(notFound.viewerResponseCode);
});
