import assert from "node:assert/strict";
import { addOwed, MAX_OWED_KEYS, NOTHING_OWED } from "./owed_invalidation.ts";

Deno.test("addOwed(): keeps the union of what is owed, sorted and without repeats", () => {
  const owed = addOwed({ keys: ["b.html", "a.css"], all: false }, ["a.css", "c.js"]);
  assert.deepEqual(owed, { keys: ["a.css", "b.html", "c.js"], all: false });
});

Deno.test("addOwed(): past the cap everything is owed, and stays so", () => {
  const many = Array.from({ length: MAX_OWED_KEYS + 1 }, (_, i) => `p${i}.html`);
  const all = addOwed(NOTHING_OWED, many);
  assert.deepEqual(all, { keys: [], all: true });
  assert.deepEqual(addOwed(all, ["x.html"]), { keys: [], all: true });
});
