import assert from "node:assert/strict";
import { contentTypeFor } from "./content_type.ts";

Deno.test("contentTypeFor() adds charset=utf-8 to every text type", () => {
  assert.equal(contentTypeFor("index.html"), "text/html; charset=utf-8");
  assert.equal(contentTypeFor("a/style.css"), "text/css; charset=utf-8");
  assert.equal(contentTypeFor("app.js"), "text/javascript; charset=utf-8");
  assert.equal(contentTypeFor("data.json"), "application/json; charset=utf-8");
  assert.equal(contentTypeFor("logo.svg"), "image/svg+xml; charset=utf-8");
  assert.equal(contentTypeFor("sitemap.xml"), "application/xml; charset=utf-8");
  assert.equal(contentTypeFor("robots.txt"), "text/plain; charset=utf-8");
  assert.equal(contentTypeFor("site.webmanifest"), "application/manifest+json; charset=utf-8");
  assert.equal(contentTypeFor("feed.rss"), "application/rss+xml; charset=utf-8");
});

Deno.test("contentTypeFor() leaves binary types without a charset", () => {
  assert.equal(contentTypeFor("a.png"), "image/png");
  assert.equal(contentTypeFor("f/a.woff2"), "font/woff2");
  assert.equal(contentTypeFor("a.wasm"), "application/wasm");
  assert.equal(contentTypeFor("a.avif"), "image/avif");
  assert.equal(contentTypeFor("doc.pdf"), "application/pdf");
});

Deno.test("contentTypeFor() falls back to application/octet-stream", () => {
  assert.equal(contentTypeFor("LICENSE"), "application/octet-stream");
  assert.equal(contentTypeFor("a.unknownext"), "application/octet-stream");
});

Deno.test("contentTypeFor() reads the extension, not a bare file name", () => {
  assert.equal(contentTypeFor("html"), "application/octet-stream");
  assert.equal(contentTypeFor("docs/json"), "application/octet-stream");
  assert.equal(contentTypeFor(".nojekyll"), "application/octet-stream");
  assert.equal(contentTypeFor("a/README.MD"), "text/markdown; charset=utf-8");
});

Deno.test("contentTypeFor() serves the extension-less .well-known files with their protocol types", () => {
  assert.equal(
    contentTypeFor(".well-known/apple-app-site-association"),
    "application/json; charset=utf-8",
  );
  assert.equal(contentTypeFor(".well-known/atproto-did"), "text/plain; charset=utf-8");
});
