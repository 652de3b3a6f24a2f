import assert from "node:assert/strict";
import {
  type CacheKeyInputs,
  dependencyCacheKey,
  installCacheKey,
  readCacheKey,
} from "./cache_key.ts";
import { makeTree } from "../source/_test_tree.ts";

const base: CacheKeyInputs = {
  manager: "npm",
  lockfile: "package-lock.json",
  lockfileSha256: "aa",
  packageJsonSha256: "bb",
  runtime: "node v20.20.2",
  platform: "linux-x86_64",
  app: ".",
};

Deno.test("dependencyCacheKey() is the same for the same install and names its manager", () => {
  assert.equal(dependencyCacheKey(base), dependencyCacheKey({ ...base }));
  assert.match(dependencyCacheKey(base), /^npm-[0-9a-f]{64}$/);
});

Deno.test("dependencyCacheKey() changes with each thing that decides the installed tree", () => {
  const keys = new Set([
    dependencyCacheKey(base),
    dependencyCacheKey({ ...base, lockfileSha256: "ab" }),
    dependencyCacheKey({ ...base, packageJsonSha256: "bc" }),
    dependencyCacheKey({ ...base, runtime: "node v22.1.0" }),
    dependencyCacheKey({ ...base, platform: "darwin-aarch64" }),
    dependencyCacheKey({ ...base, app: "site" }),
    dependencyCacheKey({ ...base, manager: "pnpm", lockfile: "pnpm-lock.yaml" }),
  ]);
  assert.equal(keys.size, 7);
});

Deno.test("readCacheKey() changes when the lockfile is edited or the runtime changes", async () => {
  const root = await makeTree({ "package.json": "{}", "package-lock.json": '{"v":1}' });
  try {
    const detection = { manager: "npm", marker: "package-lock.json" } as const;
    const node20 = () => Promise.resolve("v20.20.2");
    const first = await readCacheKey(detection, root, root, ".", node20);
    assert.equal(first?.inputs.runtime, "node v20.20.2");
    assert.equal((await readCacheKey(detection, root, root, ".", node20))?.key, first?.key);
    const node22 = await readCacheKey(detection, root, root, ".", () => Promise.resolve("v22.0.0"));
    assert.notEqual(node22?.key, first?.key);
    await Deno.writeTextFile(`${root}/package-lock.json`, '{"v":2}');
    const edited = await readCacheKey(detection, root, root, ".", node20);
    assert.notEqual(edited?.key, first?.key);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("readCacheKey() caches no install without a lockfile, nor Deno's", async () => {
  const root = await makeTree({ "package.json": "{}", "deno.json": "{}" });
  try {
    const v = () => Promise.resolve("v1");
    const bare = { manager: "npm", marker: "package.json" } as const;
    assert.equal(await readCacheKey(bare, root, root, ".", v), undefined);
    const deno = { manager: "deno", marker: "deno.json" } as const;
    assert.equal(await readCacheKey(deno, root, root, ".", v), undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("readCacheKey() asks bun for bun's installs and node for the others", async () => {
  const root = await makeTree({ "package.json": "{}", "bun.lock": "{}" });
  try {
    const asked: string[] = [];
    const v = (p: "bun" | "node") => (asked.push(p), Promise.resolve("1.2.0"));
    const key = await readCacheKey({ manager: "bun", marker: "bun.lock" }, root, root, ".", v);
    assert.deepEqual(asked, ["bun"]);
    assert.match(key?.key ?? "", /^bun-/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("installCacheKey() skips the cache in one line when the runtime cannot be asked", async () => {
  const root = await makeTree({ "package.json": "{}", "package-lock.json": "{}" });
  try {
    const context = {
      detection: { manager: "npm", marker: "package-lock.json" } as const,
      lockDir: root,
      appDir: root,
      app: ".",
    };
    const lines: string[] = [];
    const denied = () => Promise.reject(new Error('Requires run access to "node"'));
    assert.equal(await installCacheKey(context, denied, (l) => lines.push(l)), undefined);
    assert.deepEqual(lines, [
      'dependency cache not used: `node --version` could not run (Requires run access to "node"); ' +
      "the deploy task's --allow-run needs node",
    ]);
    const key = await installCacheKey(context, () => Promise.resolve("v20"), (l) => lines.push(l));
    assert.match(key ?? "", /^npm-/);
    assert.equal(lines.length, 1);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
