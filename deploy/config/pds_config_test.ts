import assert from "node:assert/strict";
import { resolvePdsConfig } from "./pds_config.ts";

const SITE = { siteName: "blog" };

Deno.test("resolvePdsConfig() is inert (null) when the section is absent", () => {
  assert.deepEqual(resolvePdsConfig(undefined, SITE), { config: null });
});

Deno.test("resolvePdsConfig() fills the resolver and the <siteName>/atproto secret name", () => {
  assert.deepEqual(resolvePdsConfig({ name: "My blog" }, SITE), {
    config: {
      name: "My blog",
      handleResolver: "https://public.api.bsky.app",
      secretName: "blog/atproto",
      announce: { enabled: false, template: "{title}\n\n{description}\n\n{url}" },
      comments: false,
      appview: "https://public.api.bsky.app",
    },
  });
});

Deno.test("resolvePdsConfig() takes an http AppView on loopback only (tests, development)", () => {
  const ok = resolvePdsConfig({ name: "x", appview: "http://127.0.0.1:8080" }, SITE);
  assert.ok("config" in ok && ok.config?.appview === "http://127.0.0.1:8080");
  assert.ok("config" in resolvePdsConfig({ name: "x", appview: "http://localhost:1" }, SITE));
});

Deno.test("resolvePdsConfig() counts the announce template in graphemes, not code units", () => {
  // 300 "family" emoji are 300 graphemes (and 2,400 UTF-16 code units): fine; one more is not.
  const family = "👨‍👩‍👧";
  const at = (n: number) =>
    resolvePdsConfig({ name: "x", announce: { template: family.repeat(n) } }, SITE);
  assert.ok("config" in at(300));
  const over = at(301);
  assert.deepEqual("errors" in over ? over.errors.map((e) => e.path) : [], [
    "pds.announce.template",
  ]);
  const combining = "e\u0301\u0302".repeat(300); // 300 letters with two combining marks each
  assert.ok("config" in resolvePdsConfig({ name: "x", announce: { template: combining } }, SITE));
});

const INVALID: [unknown, string][] = [
  [{}, "pds.name: is required"],
  [{ name: "   " }, 'pds.name: must be non-empty (got "   ")'],
  [
    { name: "x", handleResolver: "http://resolver.example" },
    'pds.handleResolver: must be a valid https: URL (got "http://resolver.example")',
  ],
  [
    { name: "x", handleResolver: "not a url" },
    'pds.handleResolver: must be a valid https: URL (got "not a url")',
  ],
  [
    { name: "x", secretName: "bad name!" },
    'pds.secretName: must use only the characters A-Z a-z 0-9 _ / + = . @ - (got "bad name!")',
  ],
  [{ name: "x", extra: 1 }, "pds.extra: unknown key"],
  [
    { name: "x", appview: "http://appview.example" },
    'pds.appview: must be a valid https: URL (plain http only on a loopback host) (got "http://appview.example")',
  ],
  [
    { name: "x", announce: { template: "New: {titel} {url}" } },
    'pds.announce.template: must use only the placeholders {title}, {description} and {url} (got "New: {titel} {url}")',
  ],
  [
    { name: "x", announce: { enabled: "yes" } },
    'pds.announce.enabled: must be true or false (got "yes")',
  ],
  [{ name: "x", comments: 1 }, "pds.comments: must be true or false (got 1)"],
  ["yes", 'pds: must be an object (got "yes")'],
];

Deno.test("resolvePdsConfig() rejects each broken rule naming pds.<key>", () => {
  for (const [raw, message] of INVALID) {
    const result = resolvePdsConfig(raw, SITE);
    assert.ok("errors" in result, JSON.stringify(raw));
    assert.deepEqual(result.errors.map((e) => `${e.path}: ${e.message}`), [message]);
  }
});

Deno.test("resolvePdsConfig() accepts a valid secret name with every allowed character", () => {
  const result = resolvePdsConfig({
    name: "x",
    secretName: "A-z_0/+=.@x",
    handleResolver: "https://r.example",
  }, SITE);
  assert.ok("config" in result);
  assert.equal(result.config?.secretName, "A-z_0/+=.@x");
});

Deno.test("resolvePdsConfig() reports every broken rule at once, each with its key path", () => {
  const result = resolvePdsConfig(
    { name: " ", handleResolver: "http://resolver.example", secretName: "bad name!" },
    SITE,
  );
  assert.ok("errors" in result);
  assert.deepEqual(result.errors.map((e) => e.path), [
    "pds.name",
    "pds.handleResolver",
    "pds.secretName",
  ]);
});
