import assert from "node:assert/strict";
import { cacheControlFor, IMMUTABLE, isFingerprinted, REVALIDATE } from "./cache_control.ts";

Deno.test("cacheControlFor() makes HTML revalidate even with a hash-like name", () => {
  assert.equal(cacheControlFor("index.html"), REVALIDATE);
  assert.equal(cacheControlFor("page.3f2a1b9c.html"), REVALIDATE);
});

Deno.test("cacheControlFor() caches fingerprinted assets for a year, immutable", () => {
  for (
    const key of [
      "_astro/index.BcD3fG7h.css",
      "assets/index-4f3a2b1c.js",
      "main.3f2a1b9c8d.js",
      "_next/static/chunks/main-a1b2c3d4e5f6.js",
      "img/hero.a1b2c3d4.webp",
      "assets/index-B7x9Qk2L.js",
      "main.3f2a1b9c.js",
      "_astro/index.Bx8sK2mQ.css",
      "_astro/Layout.DiwrgTda.css",
      "static/js/main.8f3c2a1b.chunk.js",
    ]
  ) assert.equal(cacheControlFor(key), IMMUTABLE, key);
});

Deno.test("cacheControlFor() makes un-fingerprinted files revalidate", () => {
  for (
    const key of [
      "favicon.ico",
      "robots.txt",
      "sitemap.xml",
      "js/bootstrap-standalone.js",
      "jquery-3.7.1.min.js",
      "fonts/Inter-Variable.woff2",
      "img/logo.png",
      "report-20240115.pdf",
      "logo-v2final1.png",
      "photo-IMG12345.jpg",
      "assets/report-20240115.pdf",
      "assets/logo-v2final1.png",
      "assets/photo-IMG12345.jpg",
      "assets/Photo-MyHolidayPic.jpg",
      "downloads/build-12345678.zip",
      "index-B7x9Qk2L.js",
    ]
  ) assert.equal(cacheControlFor(key), REVALIDATE, key);
});

Deno.test("isFingerprinted() accepts mixed-case hashes only inside build-output folders", () => {
  assert.equal(isFingerprinted("_astro/Layout.DiwrgTda.css"), true);
  assert.equal(isFingerprinted("css/Layout.DiwrgTda.css"), false);
  assert.equal(isFingerprinted("assets/Layout.DiwrgTda.css"), false, "assets/ needs a digit");
  assert.equal(isFingerprinted("assets/Layout.Diw9gTda.css"), true);
});

Deno.test("isFingerprinted() never takes an all-digit part for a hash, even in a build folder", () => {
  assert.equal(isFingerprinted("_astro/chunk.12345678.js"), false);
  assert.equal(isFingerprinted("a.1234567890.js"), false);
});
