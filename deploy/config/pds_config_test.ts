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
    },
  });
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
