import assert from "node:assert/strict";
import {
  objectsToStore,
  type OutputManifest,
  outputManifest,
  outputManifestKey,
  outputObjectKey,
  parseOutputManifest,
  restoreFiles,
  rollbackMethod,
} from "./output.ts";
import { outputExpiryDays } from "../state/bucket_layout.ts";
import { planSync, type RemoteObject } from "../sync/plan.ts";

const DAY = 86_400_000;
const NOW = Date.parse("2026-11-26T12:00:00Z");
const md5 = (c: string) => c.repeat(32);
const TAGS = { app: "example.com", environment: "production" };

function manifest(
  files: Record<string, string>,
  createdAtMs = NOW - DAY,
): OutputManifest {
  return outputManifest(
    "b1",
    createdAtMs,
    Object.entries(files).map(([key, c]) => ({ key, md5: md5(c), size: 10 })),
    TAGS,
  );
}

Deno.test("outputManifest() records each path's hash and the headers the sync gave it, sorted", () => {
  const m = manifest({ "index.html": "a", "_astro/app.1a2b3c4d.js": "b" });
  assert.equal(m.createdAt, new Date(NOW - DAY).toISOString());
  assert.deepEqual(m.tags, TAGS);
  assert.deepEqual(m.files.map((f) => f.key), ["_astro/app.1a2b3c4d.js", "index.html"]);
  const [asset, page] = m.files;
  assert.match(asset!.contentType, /javascript/);
  assert.match(asset!.cacheControl, /immutable/);
  assert.match(page!.contentType, /^text\/html/);
  assert.equal(outputManifestKey("b1"), "outputs/manifests/b1.json");
  assert.equal(outputObjectKey(md5("a")), `outputs/objects/${md5("a")}`);
});

Deno.test("parseOutputManifest() round-trips a manifest and names what is wrong with others", () => {
  const m = manifest({ "index.html": "a" });
  assert.deepEqual(parseOutputManifest(JSON.stringify(m)), { manifest: m });
  assert.deepEqual(parseOutputManifest("nope"), { error: "not JSON" });
  assert.deepEqual(parseOutputManifest(JSON.stringify({ ...m, version: 2 })), {
    error: "unsupported version 2",
  });
  const bad = { ...m, files: [{ ...m.files[0], md5: "xyz" }] };
  assert.deepEqual(parseOutputManifest(JSON.stringify(bad)), {
    error: 'bad file entry "index.html"',
  });
});

Deno.test("restore diff: only paths whose content differs are copied back; what the build lacked is deleted", () => {
  const target = manifest({ "index.html": "a", "a.css": "b", "same.js": "c" });
  const live: RemoteObject[] = [
    { key: "index.html", size: 10, md5: md5("x") }, // changed since
    { key: "same.js", size: 10, md5: md5("c") }, // identical
    { key: "new.js", size: 10, md5: md5("d") }, // added by a later build
  ];
  const plan = planSync(restoreFiles(target), live);
  assert.deepEqual(plan.uploads.map((u) => [u.file.key, u.reason]), [
    ["a.css", "new"],
    ["index.html", "changed"],
  ]);
  assert.deepEqual(plan.deletes, ["new.js"]);
  assert.equal(plan.unchanged, 1);
  const copied = plan.uploads[1]!.file.source;
  assert.ok("copy" in copied);
  assert.equal(copied.copy.key, outputObjectKey(md5("a")));
  assert.match(copied.copy.contentType, /^text\/html/);
});

Deno.test("restore diff: a live site equal to the target copies and deletes nothing", () => {
  const target = manifest({ "index.html": "a", "a.css": "b" });
  const live = target.files.map((f) => ({ key: f.key, size: f.size, md5: f.md5 }));
  const plan = planSync(restoreFiles(target), live);
  assert.deepEqual([plan.uploads.length, plan.deletes.length, plan.unchanged], [0, 0, 2]);
});

Deno.test("objectsToStore() copies each missing content once, and refreshes one older than the retention", () => {
  const files = [
    { key: "a.css", md5: md5("a") },
    { key: "copy-of-a.css", md5: md5("a") },
    { key: "b.js", md5: md5("b") },
    { key: "c.js", md5: md5("c") },
  ];
  const stored = new Map([[md5("b"), NOW - 29 * DAY], [md5("c"), NOW - 31 * DAY]]);
  assert.deepEqual(objectsToStore(files, stored, NOW, 30).map((f) => f.key), ["a.css", "c.js"]);
  assert.equal(outputExpiryDays(30), 60);
});

Deno.test("rollbackMethod() restores a kept build within the retention", () => {
  const m = manifest({ "index.html": "a", "a.css": "b" }, NOW - 29 * DAY);
  assert.deepEqual(rollbackMethod("b1", m, NOW, 30), { method: "restore", manifest: m });
});

Deno.test("rollbackMethod() rebuilds, saying why: no manifest, past the retention", () => {
  assert.deepEqual(rollbackMethod("b1", undefined, NOW, 30), {
    method: "rebuild",
    reason: "build b1 has no stored output (deployed before outputs were kept, or expired)",
  });
  const old = manifest({ "index.html": "a" }, NOW - 31 * DAY);
  assert.deepEqual(rollbackMethod("b1", old, NOW, 30), {
    method: "rebuild",
    reason: "build b1 was deployed 31 days ago, past retention.buildsDays (30)",
  });
});
