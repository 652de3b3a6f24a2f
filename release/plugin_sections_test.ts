import assert from "node:assert/strict";
import { FIRST_PARTY, SECTIONS_FILE } from "./plugin_sections.ts";

Deno.test("the committed first-party plugin sections are what `deno task schema` writes now", async () => {
  const committed = JSON.parse(
    await Deno.readTextFile(new URL(`../${SECTIONS_FILE}`, import.meta.url)),
  );
  assert.deepEqual(
    committed,
    JSON.parse(JSON.stringify(FIRST_PARTY)),
    "stale: run `deno task schema` and commit deploy/config/first_party_sections.json",
  );
});
