import assert from "node:assert/strict";
import { changeDigest } from "./change_digest.ts";
import { type LocalFile, planSync, type RemoteObject } from "./plan.ts";

const file = (key: string, md5: string): LocalFile => ({
  key,
  md5,
  size: 1,
  source: { path: `/dist/${key}` },
});
const live = (key: string, md5: string): RemoteObject => ({ key, md5, size: 1 });

Deno.test("changeDigest() differs for a new edit of the same file, and repeats for the same change", () => {
  const remote = [live("index.html", "v1")];
  const toV2 = changeDigest(planSync([file("index.html", "v2")], remote), remote);
  const toV3 = changeDigest(planSync([file("index.html", "v3")], remote), remote);
  assert.notEqual(toV2, toV3);
  assert.equal(changeDigest(planSync([file("index.html", "v2")], remote), remote), toV2);
});

Deno.test("changeDigest() tells a rollback from the first deploy of the same content", () => {
  const first = changeDigest(planSync([file("a.css", "x")], []), []);
  const remote = [live("a.css", "y")];
  const rollback = changeDigest(planSync([file("a.css", "x")], remote), remote);
  assert.notEqual(first, rollback);
});

Deno.test("changeDigest() covers deletions", () => {
  const remote = [live("a.css", "x"), live("b.css", "y")];
  const a = changeDigest(planSync([file("a.css", "x")], remote), remote);
  const b = changeDigest(planSync([file("b.css", "y")], remote), remote);
  assert.notEqual(a, b);
});
