// deno-lint-ignore-file no-console -- a fixture the machine cannot run says so in one line
import assert from "node:assert/strict";
import { type Logger, silentLogger } from "@org/shared";
import { runBuildSteps } from "../job/run_steps.ts";
import { openCacheStore } from "./cache_store.ts";
import { localBuildCache } from "./local_build_cache.ts";
import { makeTree } from "../source/_test_tree.ts";
import { npmSiteFiles } from "../../tests/support/npm_site.ts";

/**
 * An npm site whose one dependency is a folder of its own (installed offline, as a link), whose
 * build writes the dependency's value and a Vite-style cache file into node_modules/.vite.
 */
const BUILD = "node -e \"const fs=require('fs');fs.mkdirSync('dist',{recursive:true});" +
  "fs.mkdirSync('node_modules/.vite',{recursive:true});" +
  "const n=fs.existsSync('node_modules/.vite/n')?+fs.readFileSync('node_modules/.vite/n','utf8'):0;" +
  "fs.writeFileSync('node_modules/.vite/n',String(n+1));" +
  "fs.writeFileSync('dist/index.html',require('dep')+' '+(n+1))\"";
const PREINSTALL =
  "node -e \"process.exit(require('fs').existsSync('node_modules/.broken') ? 1 : 0)\"";
const NPM_SITE = {
  // A tree marked broken fails `npm install` (an entry whose install fails); `npm ci` removes
  // node_modules before it runs this, so a clean install passes.
  ...npmSiteFiles({ build: BUILD, preinstall: PREINSTALL, depValue: "dep-v1" }),
};

interface World {
  readonly cacheDir: string;
  readonly warnings: string[];
  build(
    files?: Record<string, string>,
    version?: string,
    branch?: string,
  ): Promise<Awaited<ReturnType<typeof runBuildSteps>> & { html: string; root: string }>;
}

async function withWorld(run: (world: World) => Promise<void>): Promise<void> {
  const cacheDir = await Deno.makeTempDir({ prefix: "build-cache-" });
  const roots: string[] = [];
  const warnings: string[] = [];
  const logger: Logger = { ...silentLogger, warn: (m: string) => warnings.push(m) };
  try {
    await run({
      cacheDir,
      warnings,
      async build(files = NPM_SITE, version = "v20.0.0", branch = "main") {
        const root = await makeTree(files);
        roots.push(root);
        const cache = localBuildCache({
          store: openCacheStore(cacheDir),
          logger,
          scope: { site: "blog", branch },
          readVersion: () => Promise.resolve(version),
        });
        const built = await runBuildSteps({
          rootDir: root,
          paths: { app: ".", dist: "dist" },
          deadlineMs: 120_000,
          cache,
        });
        return { ...built, html: await Deno.readTextFile(`${built.distDir}/index.html`), root };
      },
    });
  } finally {
    for (const root of roots) await Deno.remove(root, { recursive: true }).catch(() => {});
    await Deno.remove(cacheDir, { recursive: true });
  }
}

Deno.test("build cache: a miss installs and fills the cache; the next build restores it", async () => {
  await withWorld(async (world) => {
    const first = await world.build();
    assert.equal(first.cacheHit, false);
    assert.match(first.cacheKey ?? "", /^npm-/);
    assert.equal(first.html, "dep-v1 1");
    const second = await world.build();
    assert.equal(second.cacheHit, true);
    assert.equal(second.cacheKey, first.cacheKey);
    assert.equal(second.frameworkCacheHit, true);
    assert.equal(second.html, "dep-v1 2"); // the Vite-style cache came back too
    assert.deepEqual(world.warnings, []);
  });
});

Deno.test("build cache: an edited lockfile or another runtime version misses", async () => {
  await withWorld(async (world) => {
    const first = await world.build();
    const otherNode = await world.build(NPM_SITE, "v22.0.0");
    assert.equal(otherNode.cacheHit, false);
    assert.notEqual(otherNode.cacheKey, first.cacheKey);
    const lock = JSON.parse(NPM_SITE["package-lock.json"]!);
    lock.packages["vendor/dep"].version = "1.0.1";
    const edited = await world.build({
      ...NPM_SITE,
      "package-lock.json": JSON.stringify(lock),
      "vendor/dep/package.json": '{"name":"dep","version":"1.0.1","main":"index.js"}',
    });
    assert.equal(edited.cacheHit, false);
    assert.notEqual(edited.cacheKey, first.cacheKey);
  });
});

Deno.test("build cache: the framework caches are kept per branch", async () => {
  await withWorld(async (world) => {
    await world.build();
    const other = await world.build(NPM_SITE, "v20.0.0", "feature");
    assert.equal(other.cacheHit, true); // dependencies are shared by key
    assert.equal(other.frameworkCacheHit, false);
    assert.equal(other.html, "dep-v1 1");
  });
});

Deno.test("build cache: an entry whose install fails is discarded in one line and installed cleanly", async () => {
  await withWorld(async (world) => {
    const first = await world.build();
    const files = `${world.cacheDir}/deps/${first.cacheKey}/files`;
    await Deno.writeTextFile(`${files}/node_modules/.broken`, "");
    const second = await world.build();
    assert.equal(second.cacheHit, false);
    assert.equal(second.html, "dep-v1 2");
    assert.equal(world.warnings.length, 1);
    assert.match(world.warnings[0]!, /dependency cache entry discarded: .*installing cleanly/);
    const third = await world.build(); // the clean install filled the cache again
    assert.equal(third.cacheHit, true);
  });
});

Deno.test("build cache: a truncated entry is discarded in one line and installed cleanly", async () => {
  await withWorld(async (world) => {
    const first = await world.build();
    await Deno.remove(`${world.cacheDir}/deps/${first.cacheKey}/files/node_modules`, {
      recursive: true,
    });
    const second = await world.build();
    assert.equal(second.cacheHit, false);
    assert.equal(second.html, "dep-v1 2");
    assert.equal(world.warnings.length, 1);
    assert.match(world.warnings[0]!, /truncated.*installing cleanly/);
  });
});

Deno.test("build cache: two builds at once share the cache without harm", async () => {
  await withWorld(async (world) => {
    await world.build();
    const both = await Promise.all([world.build(), world.build(NPM_SITE, "v20.0.0", "b")]);
    assert.deepEqual(both.map((b) => b.html.startsWith("dep-v1")), [true, true]);
    assert.equal(both.filter((b) => b.cacheHit).length >= 1, true);
    assert.equal((await world.build()).cacheHit, true); // still one entry, complete
    assert.deepEqual(world.warnings, []);
  });
});

for (
  const [manager, lockfile, lock] of [
    ["pnpm", "pnpm-lock.yaml", "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n"],
    [
      "bun",
      "bun.lock",
      '{\n  "lockfileVersion": 1,\n  "workspaces": {\n    "": {\n      "name": "t",\n    },\n  },\n  "packages": {},\n}\n',
    ],
  ] as const
) {
  Deno.test(`build cache: a ${manager} site is cached under its own key`, async () => {
    let found = false;
    try {
      const command = new Deno.Command(manager, {
        args: ["--version"],
        stdout: "null",
        stderr: "null",
      });
      found = (await command.output()).success;
    } catch {
      // not installed
    }
    if (!found) {
      console.log(`skipped: ${manager} is not installed on this machine`);
      return;
    }
    await withWorld(async (world) => {
      const site = {
        "package.json": JSON.stringify({
          name: "t",
          private: true,
          scripts: { build: BUILD.replace("require('dep')+' '+", "") },
        }),
        [lockfile]: lock,
      };
      const first = await world.build(site);
      assert.match(first.cacheKey ?? "", new RegExp(`^${manager}-`));
      const second = await world.build(site);
      assert.equal(second.cacheKey, first.cacheKey);
      assert.equal(second.frameworkCacheHit, true);
    });
  });
}
