import assert from "node:assert/strict";
import { listSourceFiles, underPrefix } from "./select.ts";
import { DeployError } from "../errors.ts";
import { makeTree } from "./_test_tree.ts";

const DEFAULT_IGNORE = [".jj/", ".git/", "node_modules/", "dist/", ".astro/"];

Deno.test("listSourceFiles() honours .gitignore at every level, with re-includes", async () => {
  const root = await makeTree({
    ".gitignore": "*.log\nsecret/\n",
    "a.ts": "a",
    "debug.log": "x",
    "secret/key": "k",
    "pkg/.gitignore": "gen/\n!keep.log\n",
    "pkg/gen/out.js": "g",
    "pkg/keep.log": "kept",
    "pkg/other.log": "dropped",
    "pkg/src/x.ts": "x",
    ".git/HEAD": "ref",
  });
  try {
    const files = await listSourceFiles({
      repoRoot: root,
      sourceIgnore: DEFAULT_IGNORE,
      sourceInclude: [],
    });
    assert.deepEqual(files, [
      ".gitignore",
      "a.ts",
      "pkg/.gitignore",
      "pkg/keep.log",
      "pkg/src/x.ts",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("listSourceFiles() drops sourceIgnore prefixes segment-wise", async () => {
  const root = await makeTree({
    "dist/index.html": "d",
    "distribution.txt": "kept",
    "node_modules/x/index.js": "n",
    "docs/drafts/a.md": "dropped",
    "docs/b.md": "kept",
  });
  try {
    const files = await listSourceFiles({
      repoRoot: root,
      sourceIgnore: [...DEFAULT_IGNORE, "docs/drafts"],
      sourceInclude: [],
    });
    assert.deepEqual(files, ["distribution.txt", "docs/b.md"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("listSourceFiles() adds sourceInclude paths back even when ignored", async () => {
  const root = await makeTree({
    ".gitignore": ".env.production\ngenerated/\n",
    ".env.production": "API=1",
    "generated/a.json": "{}",
    "generated/deep/b.json": "{}",
    "dist/keep/x.txt": "x",
    "src.ts": "s",
  });
  try {
    const files = await listSourceFiles({
      repoRoot: root,
      sourceIgnore: DEFAULT_IGNORE,
      sourceInclude: [".env.production", "generated/", "dist/keep"],
    });
    assert.deepEqual(files, [
      ".env.production",
      ".gitignore",
      "dist/keep/x.txt",
      "generated/a.json",
      "generated/deep/b.json",
      "src.ts",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("listSourceFiles() fails naming a missing sourceInclude path", async () => {
  const root = await makeTree({ "a.ts": "a" });
  try {
    await assert.rejects(
      listSourceFiles({ repoRoot: root, sourceIgnore: [], sourceInclude: ["config/prod.json"] }),
      (err) =>
        err instanceof DeployError && err.code === "source_include_missing" &&
        err.message.includes("config/prod.json"),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("listSourceFiles() fails on an empty sourceInclude file or directory", async () => {
  const root = await makeTree({ "empty.txt": "" });
  await Deno.mkdir(`${root}/emptydir`);
  try {
    for (const path of ["empty.txt", "emptydir"]) {
      await assert.rejects(
        listSourceFiles({ repoRoot: root, sourceIgnore: [], sourceInclude: [path] }),
        (err) => err instanceof DeployError && err.code === "source_include_empty",
      );
    }
    await assert.rejects(
      listSourceFiles({ repoRoot: root, sourceIgnore: [], sourceInclude: ["../x"] }),
      (err) => err instanceof DeployError && err.code === "source_include_invalid",
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("underPrefix() matches whole segments only", () => {
  assert.equal(underPrefix("dist", ["dist"]), true);
  assert.equal(underPrefix("dist/a", ["dist"]), true);
  assert.equal(underPrefix("distribution", ["dist"]), false);
});

Deno.test({
  name:
    "listSourceFiles() follows symlinks inside the repository and leaves out, with a warning, those leading outside",
  ignore: Deno.build.os === "windows",
  async fn() {
    const outside = await makeTree({ "credentials": "secret", "lib/x.ts": "x" });
    const root = await makeTree({ "shared/util.ts": "u", "app/main.ts": "m" });
    try {
      await Deno.symlink(`${root}/shared`, `${root}/app/shared`);
      await Deno.symlink(`${root}/app`, `${root}/app/loop`);
      await Deno.symlink(`${outside}/credentials`, `${root}/creds`);
      await Deno.symlink(`${outside}/lib`, `${root}/vendor`);
      const warnings: string[] = [];
      const files = await listSourceFiles({
        repoRoot: root,
        sourceIgnore: [],
        sourceInclude: [],
        onWarning: (w) => warnings.push(w),
      });
      assert.deepEqual(files, ["app/main.ts", "app/shared/util.ts", "shared/util.ts"]);
      assert.equal(warnings.length, 2);
      assert.ok(warnings.some((w) => w.includes("creds")), warnings.join("|"));
      assert.ok(warnings.some((w) => w.includes("vendor")), warnings.join("|"));
    } finally {
      await Deno.remove(root, { recursive: true });
      await Deno.remove(outside, { recursive: true });
    }
  },
});

Deno.test("listSourceFiles() leaves out a .git file (worktree or submodule pointer)", async () => {
  const root = await makeTree({
    ".git": "gitdir: /elsewhere/.git/worktrees/x",
    "a.ts": "a",
    "sub/.git": "gitdir: ../.git/modules/sub",
    "sub/b.ts": "b",
    "inc/.git": "gitdir: x",
    "inc/c.ts": "c",
  });
  try {
    const files = await listSourceFiles({
      repoRoot: root,
      sourceIgnore: ["inc"],
      sourceInclude: ["inc"],
    });
    assert.deepEqual(files, ["a.ts", "inc/c.ts", "sub/b.ts"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("listSourceFiles() reads backslashes in sourceIgnore and sourceInclude as slashes", async () => {
  const root = await makeTree({
    ".gitignore": "secrets/\n",
    "site/dist/a.js": "a",
    "site/src/b.ts": "b",
    "secrets/prod/key": "k",
  });
  try {
    const files = await listSourceFiles({
      repoRoot: root,
      sourceIgnore: ["site\\dist\\"],
      sourceInclude: ["secrets\\prod"],
    });
    assert.deepEqual(files, [".gitignore", "secrets/prod/key", "site/src/b.ts"]);
    assert.equal(underPrefix("site/dist/a.js", ["site\\dist"]), true);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
