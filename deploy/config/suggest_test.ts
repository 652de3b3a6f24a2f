import assert from "node:assert/strict";
import { suggest } from "./suggest.ts";

Deno.test("suggest() finds case slips, typos and transpositions", () => {
  assert.equal(suggest("sitename", ["siteName", "region"]), "siteName");
  assert.equal(suggest("regoin", ["siteName", "region"]), "region");
  assert.equal(suggest("retension", ["retention", "region"]), "retention");
});

Deno.test("suggest() offers nothing for unrelated words", () => {
  assert.equal(suggest("zzz", ["siteName", "region"]), undefined);
  assert.equal(suggest("x", ["spa", "seo"]), undefined);
});
