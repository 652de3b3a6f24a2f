import assert from "node:assert/strict";
import { isStorableJson, isStorableText, toStorableText } from "./storable_text.ts";

Deno.test("isStorableText() refuses NUL and unpaired surrogates, accepts every other text", () => {
  for (const ok of ["", "Ada", "🚀", "\u0001\u007f", "\ufffd\uffff", "\\u0000"]) {
    assert.equal(isStorableText(ok), true, JSON.stringify(ok));
  }
  for (const bad of ["\0", "a\u0000b", "\ud800", "x\udfff", "\udc00\ud800", "🚀".slice(0, 1)]) {
    assert.equal(isStorableText(bad), false, JSON.stringify(bad));
  }
});

Deno.test("toStorableText() replaces each refused character by U+FFFD and keeps the rest", () => {
  assert.equal(toStorableText("Ada 🚀"), "Ada 🚀");
  assert.equal(toStorableText("a\0b\ud800c\udfff"), "a\ufffdb\ufffdc\ufffd");
  assert.equal(isStorableText(toStorableText("\0\udc00\ud800")), true);
});

Deno.test("isStorableJson() looks at keys and values at every depth", () => {
  assert.equal(isStorableJson({ a: [1, null, true, { b: "c" }] }), true);
  assert.equal(isStorableJson({ a: [{ b: "c\0" }] }), false);
  assert.equal(isStorableJson({ a: { ["k\ud800"]: 1 } }), false);
  assert.equal(isStorableJson(["\udfff"]), false);
});
