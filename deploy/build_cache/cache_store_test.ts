import assert from "node:assert/strict";
import { openCacheStore } from "./cache_store.ts";
import { makeTree } from "../source/_test_tree.ts";

async function withDirs(run: (cache: string, src: string) => Promise<void>): Promise<void> {
  const cache = await Deno.makeTempDir({ prefix: "cache-" });
  const src = await makeTree({ "node_modules/a/index.js": "a", "node_modules/.bin/x": "x" });
  try {
    await run(cache, src);
  } finally {
    await Deno.remove(cache, { recursive: true });
    await Deno.remove(src, { recursive: true });
  }
}

const read = (path: string) => Deno.readTextFile(path).catch(() => undefined);

Deno.test("cache store: a saved tree is restored into another source by a move, once", async () => {
  await withDirs(async (cache, src) => {
    const store = openCacheStore(cache);
    assert.equal(await store.put("deps", "npm-1", src, ["node_modules", "missing"]), true);
    assert.equal(await read(`${src}/node_modules/a/index.js`), undefined); // moved, not copied
    const other = await makeTree({ "package.json": "{}" });
    try {
      const taken = await store.take("deps", "npm-1", other);
      assert.equal(taken.hit, true);
      assert.deepEqual(taken.hit && taken.meta.paths, ["node_modules"]);
      assert.equal(await read(`${other}/node_modules/a/index.js`), "a");
      assert.equal((await store.take("deps", "npm-1", other)).hit, false); // taken: gone
    } finally {
      await Deno.remove(other, { recursive: true });
    }
  });
});

Deno.test("cache store: a miss changes nothing", async () => {
  await withDirs(async (cache, src) => {
    const taken = await openCacheStore(cache).take("deps", "npm-none", src);
    assert.deepEqual(taken, { hit: false });
    assert.equal(await read(`${src}/node_modules/a/index.js`), "a");
  });
});

Deno.test("cache store: a corrupt or truncated entry is reported and removed", async () => {
  await withDirs(async (cache, src) => {
    const store = openCacheStore(cache);
    await Deno.mkdir(`${cache}/deps/npm-bad/files/node_modules`, { recursive: true });
    await Deno.writeTextFile(`${cache}/deps/npm-bad/entry.json`, '{"version":1,"ke');
    const bad = await store.take("deps", "npm-bad", src);
    assert.equal(bad.hit, false);
    assert.match(!bad.hit && bad.corrupt || "", /entry\.json/);
    assert.equal(await store.has("deps", "npm-bad"), false);

    await store.put("deps", "npm-cut", src, ["node_modules"]);
    await Deno.remove(`${cache}/deps/npm-cut/files/node_modules`, { recursive: true });
    const cut = await store.take("deps", "npm-cut", src);
    assert.match(!cut.hit && cut.corrupt || "", /truncated/);
    assert.equal(await store.has("deps", "npm-cut"), false);
  });
});

Deno.test("cache store: of two runs saving one key the first wins; of two taking, one gets it", async () => {
  await withDirs(async (cache, src) => {
    const twin = await makeTree({ "node_modules/a/index.js": "twin" });
    try {
      const a = openCacheStore(cache);
      const b = openCacheStore(cache);
      const saved = await Promise.all([
        a.put("deps", "npm-1", src, ["node_modules"]),
        b.put("deps", "npm-1", twin, ["node_modules"]),
      ]);
      assert.equal(saved.filter(Boolean).length, 1);
      const [x, y] = [await makeTree({}), await makeTree({})];
      const taken = await Promise.all([a.take("deps", "npm-1", x), b.take("deps", "npm-1", y)]);
      assert.equal(taken.filter((t) => t.hit).length, 1);
      await Deno.remove(x, { recursive: true });
      await Deno.remove(y, { recursive: true });
    } finally {
      await Deno.remove(twin, { recursive: true });
    }
  });
});

Deno.test("cache store: past its size bound the entries saved longest ago go first", async () => {
  await withDirs(async (cache) => {
    let clock = 1_000_000;
    const store = openCacheStore(cache, { limitBytes: 250, now: () => clock });
    for (const key of ["old", "mid", "new"]) {
      const src = await makeTree({ "node_modules/f": "x".repeat(100) });
      clock += 1000;
      await store.put("deps", key, src, ["node_modules"]);
      await Deno.remove(src, { recursive: true });
    }
    assert.equal(await store.has("deps", "old"), false);
    assert.equal(await store.has("deps", "mid"), true);
    assert.equal(await store.has("deps", "new"), true);
  });
});
