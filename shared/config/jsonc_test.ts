import assert from "node:assert/strict";
import { parseJsonc } from "./jsonc.ts";
import { ConfigError } from "./issue.ts";

Deno.test("parseJsonc() accepts line and block comments and trailing commas", () => {
  const text = `{
    // the site
    "siteName": "blog", /* inline */
    "sourceIgnore": ["a/", "b/",],
  }`;
  assert.deepEqual(parseJsonc(text, "x.jsonc"), { siteName: "blog", sourceIgnore: ["a/", "b/"] });
});

Deno.test("parseJsonc() names the file, line and column of a syntax error", () => {
  assert.throws(() => parseJsonc('{\n  "a": 1\n  "b": 2\n}', "config/prod.jsonc"), (err) => {
    assert.ok(err instanceof ConfigError);
    assert.match(err.message, /config\/prod\.jsonc:3:3: comma expected/);
    return true;
  });
});
