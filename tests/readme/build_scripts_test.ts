/**
 * The first `deno task start` of a fresh clone tells nobody to run `deno approve-scripts`: every
 * npm package in `deno.lock` that has install scripts is settled in the root `deno.json`'s
 * `allowScripts`. Deno matches those entries by exact version, so a dependency bump that leaves
 * one behind fails here instead of bringing the box back.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "../support/token_server.ts";

Deno.test("deno.json settles the install scripts of every locked npm package, by exact version", async () => {
  const lock = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.lock")));
  const config = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.json")));
  const withScripts = Object.entries(lock.npm as Record<string, { scripts?: boolean }>)
    .filter(([, pkg]) => pkg.scripts === true)
    .map(([id]) => `npm:${id}`)
    .sort();
  assert.ok(withScripts.length > 0, "the lock records which packages have install scripts");
  const settled = [...config.allowScripts.allow, ...config.allowScripts.deny].sort();
  assert.deepEqual(settled, withScripts);
});
