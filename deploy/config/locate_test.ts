import assert from "node:assert/strict";
import { join } from "node:path";
import { DeployError } from "../errors.ts";
import { denoFiles } from "./files.ts";
import { configCandidates, findConfigFile, findRepoRoot } from "./locate.ts";

async function tempTree(paths: string[]): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "deploy-locate-" }));
  for (const p of paths) {
    if (p.endsWith("/")) await Deno.mkdir(join(root, p), { recursive: true });
    else {
      await Deno.mkdir(join(root, p, ".."), { recursive: true });
      await Deno.writeTextFile(join(root, p), "{}");
    }
  }
  return root;
}

Deno.test("findRepoRoot() finds the nearest ancestor with .git", async () => {
  const root = await tempTree(["repo/.git/", "repo/src/deep/"]);
  try {
    assert.equal(await findRepoRoot(join(root, "repo/src/deep"), denoFiles), join(root, "repo"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("findRepoRoot() finds a .jj repository, and the nearest marker wins", async () => {
  const root = await tempTree(["outer/.git/", "outer/inner/.jj/", "outer/inner/site/"]);
  try {
    assert.equal(
      await findRepoRoot(join(root, "outer/inner/site"), denoFiles),
      join(root, "outer/inner"),
    );
    assert.equal(await findRepoRoot(join(root, "outer"), denoFiles), join(root, "outer"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("findRepoRoot() returns undefined when no ancestor has a marker", async () => {
  const files = { ...denoFiles, exists: () => Promise.resolve(false) };
  assert.equal(await findRepoRoot("/a/b/c", files), undefined);
});

Deno.test("configCandidates(): config/<env>.jsonc, then ops.config.jsonc", () => {
  assert.deepEqual(configCandidates("/repo", "staging", { cwd: "/repo/sub" }), [
    "/repo/config/staging.jsonc",
    "/repo/ops.config.jsonc",
  ]);
});

Deno.test("configCandidates(): --config is the only candidate, relative to the working directory", () => {
  assert.deepEqual(
    configCandidates("/repo", "staging", { cwd: "/repo/sub", configFlag: "x.jsonc" }),
    [
      "/repo/sub/x.jsonc",
    ],
  );
  assert.deepEqual(
    configCandidates("/repo", "staging", { cwd: "/repo", configFlag: "/etc/d.jsonc" }),
    [
      "/etc/d.jsonc",
    ],
  );
});

Deno.test("findConfigFile() prefers config/<env>.jsonc and falls back to ops.config.jsonc", async () => {
  const root = await tempTree(["config/production.jsonc", "ops.config.jsonc"]);
  try {
    const prod = configCandidates(root, "production", { cwd: root });
    assert.equal(
      await findConfigFile(prod, "production", denoFiles),
      join(root, "config/production.jsonc"),
    );
    const staging = configCandidates(root, "staging", { cwd: root });
    assert.equal(
      await findConfigFile(staging, "staging", denoFiles),
      join(root, "ops.config.jsonc"),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("findConfigFile() with no file lists every path it looked for", async () => {
  const root = await tempTree([]);
  try {
    const candidates = configCandidates(root, "staging", { cwd: root });
    await assert.rejects(findConfigFile(candidates, "staging", denoFiles), (err) => {
      assert.ok(err instanceof DeployError);
      assert.equal(err.code, "config_not_found");
      assert.ok(err.message.includes(join(root, "config/staging.jsonc")));
      assert.ok(err.message.includes(join(root, "ops.config.jsonc")));
      return true;
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("findConfigFile(): a missing --config file says so and points at the path, not at init", async () => {
  const root = await tempTree([]);
  try {
    const candidates = configCandidates(root, "production", {
      configFlag: "cfg/x.jsonc",
      cwd: root,
    });
    await assert.rejects(findConfigFile(candidates, "production", denoFiles, true), (err) => {
      assert.ok(err instanceof DeployError);
      assert.equal(err.code, "config_not_found");
      assert.equal(err.message, `--config file not found: ${join(root, "cfg/x.jsonc")}`);
      assert.match(err.hint, /check the path/);
      assert.doesNotMatch(err.hint, /deploy init/);
      return true;
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
