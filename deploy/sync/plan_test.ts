import assert from "node:assert/strict";
import { changedKeys, type LocalFile, planSync, type RemoteObject, syncRefusal } from "./plan.ts";

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

Deno.test("planSync() with refresh re-uploads unchanged files, and all of them count for invalidation", () => {
  const plan = planSync([file("a.css"), file("b.css", "new")], [live("a.css"), live("b.css")], {
    refresh: true,
  });
  assert.deepEqual(plan.uploads.map((u) => [u.file.key, u.reason]), [
    ["a.css", "refresh"],
    ["b.css", "changed"],
  ]);
  assert.equal(plan.unchanged, 0);
  assert.deepEqual(changedKeys(plan), ["a.css", "b.css"]);
});

const keys = (n: number, p = "f") => Array.from({ length: n }, (_, i) => `${p}${i}.html`);

Deno.test("syncRefusal() refuses an empty build output, even with force", () => {
  const plan = planSync([], keys(3).map((k) => live(k)));
  assert.equal(syncRefusal(plan, 0)?.code, "dist_empty");
  assert.equal(syncRefusal(plan, 0, { force: true })?.code, "dist_empty");
  assert.equal(syncRefusal(planSync([], []), 0)?.code, "dist_empty");
});

Deno.test("syncRefusal() refuses deleting more than half of a live site of size, unless forced", () => {
  const remote = keys(30).map((k) => live(k));
  const local = keys(14).map((k) => file(k)); // 16 of 30 deleted
  const plan = planSync(local, remote);
  const refused = syncRefusal(plan, local.length);
  assert.equal(refused?.code, "too_many_deletes");
  assert.match(refused!.message, /16 of the 30 live files/);
  assert.match(refused!.hint, /--force/);
  assert.equal(syncRefusal(plan, local.length, { force: true }), undefined);
});

Deno.test("syncRefusal() allows deleting half the live site, or a handful of files", () => {
  const halfPlan = planSync(keys(15).map((k) => file(k)), keys(30).map((k) => live(k)));
  assert.equal(syncRefusal(halfPlan, 15), undefined, "15 of 30 is not more than half");
  const small = planSync([file("index.html")], [
    live("index.html"),
    ...keys(10).map((k) => live(k)),
  ]);
  assert.equal(syncRefusal(small, 1), undefined, "10 deletions are under the floor");
  const renamed = planSync(keys(40, "new").map((k) => file(k)), keys(12).map((k) => live(k)));
  assert.equal(syncRefusal(renamed, 40)?.code, "too_many_deletes", "a new tree replacing all");
});
