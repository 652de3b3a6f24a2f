import assert from "node:assert/strict";
import { deployTempRoot } from "../pipeline/deploy_input.ts";
import { makeWorkDir, OWNER_FILE, removeStaleWorkDirs } from "./work_dir.ts";
import { KEEP_NODE_MODULES } from "../../tests/support/deno_child.ts";

const WORK_DIR_MODULE = new URL("./work_dir.ts", import.meta.url).href;

Deno.test("removeStaleWorkDirs() removes a dead run's directory and keeps a live one", async () => {
  const root = await Deno.makeTempDir({ prefix: "work-dir-test-" });
  try {
    await using live = await makeWorkDir("deploy-src-", root);
    await Deno.mkdir(`${root}/deploy-build-dead`);
    await Deno.writeTextFile(`${root}/deploy-build-dead/${OWNER_FILE}`, "");
    assert.equal(await removeStaleWorkDirs(root), 1);
    assert.deepEqual([...Deno.readDirSync(root)].map((e) => e.name), [live.path.split("/").at(-1)]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("removeStaleWorkDirs() leaves a directory still being created, removes one abandoned long ago", async () => {
  const root = await Deno.makeTempDir({ prefix: "work-dir-test-" });
  try {
    // What a run killed between creating and locking its directory leaves behind.
    await using made = await makeWorkDir("deploy-src-", root);
    const pending = `${root}/.pending-deploy-src-killed`;
    await Deno.mkdir(pending);
    await Deno.writeTextFile(`${pending}/${OWNER_FILE}`, "");
    assert.equal(await removeStaleWorkDirs(root), 0, "fresh: may be one being created");
    assert.equal(await removeStaleWorkDirs(root, Date.now() + 11 * 60_000), 1);
    assert.deepEqual([...Deno.readDirSync(root)].map((e) => e.name), [made.path.split("/").at(-1)]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/**
 * Several processes with one `HOME`, as several deploys of one user on one machine: each
 * cleans the shared temp root and creates, uses and removes its own work directories, as fast
 * as it can. A clean-up must never remove a directory another process has just created.
 */
Deno.test("work dirs: processes sharing one HOME never lose a directory to another's clean-up", async () => {
  const home = await Deno.makeTempDir({ prefix: "deploy-home-" });
  const root = deployTempRoot({ HOME: home })!;
  await Deno.mkdir(root, { recursive: true });
  const child = `
    import { makeWorkDir, removeStaleWorkDirs } from ${JSON.stringify(WORK_DIR_MODULE)};
    const root = Deno.args[0];
    for (let i = 0; i < 150; i++) {
      await removeStaleWorkDirs(root);
      await using dir = await makeWorkDir(i % 2 ? "deploy-src-" : "deploy-build-x-", root);
      await removeStaleWorkDirs(root);
      // The run uses its directory: it must still be there.
      await Deno.writeTextFile(dir.path + "/source.zip", "zip");
      await Deno.mkdir(dir.path + "/src");
    }
  `;
  try {
    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        new Deno.Command(Deno.execPath(), {
          args: ["eval", KEEP_NODE_MODULES, "--quiet", child, root],
          stdout: "piped",
          stderr: "piped",
        }).output()),
    );
    for (const run of runs) {
      assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
    }
    assert.deepEqual([...Deno.readDirSync(root)], [], "every run removed its own directories");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
