import assert from "node:assert/strict";
import { changedKeys, type LocalFile, planSync, type RemoteObject } from "./plan.ts";

const file = (key: string, md5 = `md5-${key}`, size = 1): LocalFile => ({
  key,
  md5,
  size,
  source: { path: `/dist/${key}` },
});
const live = (key: string, md5: string | undefined = `md5-${key}`, size = 1): RemoteObject => ({
  key,
  md5,
  size,
});

Deno.test("planSync() uploads every file on a first deploy, assets before HTML", () => {
  const plan = planSync(
    [file("index.html"), file("b.js"), file("a/index.html"), file("a.css")],
    [],
  );
  assert.deepEqual(plan.uploads.map((u) => u.file.key), [
    "a.css",
    "b.js",
    "a/index.html",
    "index.html",
  ]);
  assert.ok(plan.uploads.every((u) => u.reason === "new"));
  assert.deepEqual(plan.deletes, []);
  assert.equal(plan.unchanged, 0);
});

Deno.test("planSync() does nothing for an identical redeploy", () => {
  const plan = planSync([file("index.html"), file("a.css")], [live("index.html"), live("a.css")]);
  assert.deepEqual(plan.uploads, []);
  assert.deepEqual(plan.deletes, []);
  assert.equal(plan.unchanged, 2);
  assert.deepEqual(changedKeys(plan), []);
});

Deno.test("planSync() uploads a file whose MD5 or size differs, or whose MD5 is unknown", () => {
  const plan = planSync(
    [file("a.css", "new"), file("b.css"), file("c.css"), file("d.css", "md5-d.css", 2)],
    [live("a.css"), live("b.css"), { key: "c.css", md5: undefined, size: 1 }, live("d.css")],
  );
  assert.deepEqual(plan.uploads.map((u) => [u.file.key, u.reason]), [
    ["a.css", "changed"],
    ["c.css", "changed"],
    ["d.css", "changed"],
  ]);
  assert.equal(plan.unchanged, 1);
});

Deno.test("planSync() deletes live objects that are no longer built, last", () => {
  const plan = planSync([file("index.html")], [live("index.html"), live("old.html"), live("x.js")]);
  assert.deepEqual(plan.uploads, []);
  assert.deepEqual(plan.deletes, ["old.html", "x.js"]);
  assert.deepEqual(changedKeys(plan), ["old.html", "x.js"]);
});

Deno.test("planSync() with refresh re-uploads unchanged files without calling them changed", () => {
  const plan = planSync([file("a.css"), file("b.css", "new")], [live("a.css"), live("b.css")], {
    refresh: true,
  });
  assert.deepEqual(plan.uploads.map((u) => [u.file.key, u.reason]), [
    ["a.css", "refresh"],
    ["b.css", "changed"],
  ]);
  assert.equal(plan.unchanged, 0);
  assert.deepEqual(changedKeys(plan), ["b.css"]);
});
