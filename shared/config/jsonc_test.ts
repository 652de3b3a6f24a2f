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

Deno.test("parseJsonc() ignores a leading UTF-8 byte-order mark", () => {
  assert.deepEqual(parseJsonc('\uFEFF{ "siteName": "blog" }', "x.jsonc"), { siteName: "blog" });
});

Deno.test("parseJsonc() keeps a __proto__ key as an own property, not as the prototype", () => {
  const value = parseJsonc('{ "a": 1, "__proto__": { "polluted": true }, "b": [ {} ] }', "x.jsonc");
  assert.deepEqual(Object.keys(value as object), ["a", "__proto__", "b"]);
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.equal((value as { polluted?: unknown }).polluted, undefined);
  assert.deepEqual(Object.getOwnPropertyDescriptor(value, "__proto__")?.value, { polluted: true });
});

Deno.test("parseJsonc() keeps the last of duplicate keys and nested values", () => {
  assert.deepEqual(parseJsonc('{ "a": 1, "a": { "b": [1, "x", null, false] } }', "x.jsonc"), {
    a: { b: [1, "x", null, false] },
  });
});

Deno.test("parseJsonc() refuses nesting past its bound with a position, instead of overflowing the stack", () => {
  const depth = 3000;
  const text = '{"siteName": "blog",\n "x": ' + "[".repeat(depth) + "]".repeat(depth) + "}";
  assert.throws(() => parseJsonc(text, "deep.jsonc"), (err) => {
    assert.ok(err instanceof ConfigError, String(err));
    assert.match(err.message, /deep\.jsonc:2:70: nested deeper than 64 levels/);
    return true;
  });
  // Brackets inside strings and comments are not nesting.
  const quoted = `{ "a": "${"[".repeat(100)}" /* ${"{".repeat(100)} */ }`;
  assert.deepEqual(parseJsonc(quoted, "x.jsonc"), { a: "[".repeat(100) });
});

Deno.test("parseJsonc() reports a screenful of errors of a file full of them, and counts the rest", () => {
  const text = "{\n" + "x y\n".repeat(200_000) + "}";
  const started = performance.now();
  assert.throws(() => parseJsonc(text, "junk.jsonc"), (err) => {
    assert.ok(err instanceof ConfigError);
    assert.equal(err.issues.length, 21);
    assert.match(err.issues[0]!.message, /^junk\.jsonc:2:1: /);
    assert.match(err.issues[20]!.message, /^… and \d+ more$/);
    return true;
  });
  // Bounded, not timed: the one-pass positions make this linear (it took over a minute before).
  assert.ok(performance.now() - started < 20_000);
});
