import assert from "node:assert/strict";
import { unzipSync } from "fflate";
import { createSourceZip } from "./zip.ts";
import { makeTree } from "./_test_tree.ts";
import { readZipModes } from "../job/zip_modes.ts";

Deno.test("createSourceZip() writes the same bytes for the same tree, whatever the mtimes", async () => {
  const root = await makeTree({
    ".gitignore": "secret.txt\n",
    "b.ts": "export const b = 1;\n",
    "a/x.ts": "x".repeat(100_000),
    "secret.txt": "no",
  });
  const out = await Deno.makeTempDir();
  try {
    const first = await createSourceZip({
      repoRoot: root,
      sourceIgnore: [],
      sourceInclude: [],
      outPath: `${out}/1.zip`,
    });
    await Deno.utime(`${root}/b.ts`, new Date(2020, 1, 1), new Date(2020, 1, 1));
    const second = await createSourceZip({
      repoRoot: root,
      sourceIgnore: [],
      sourceInclude: [],
      outPath: `${out}/2.zip`,
    });
    assert.equal(first.sha256, second.sha256);
    assert.deepEqual(await Deno.readFile(`${out}/1.zip`), await Deno.readFile(`${out}/2.zip`));
    assert.deepEqual(first.files, [".gitignore", "a/x.ts", "b.ts"]);
    const entries = unzipSync(await Deno.readFile(first.path));
    assert.deepEqual(Object.keys(entries).sort(), [".gitignore", "a/x.ts", "b.ts"]);
    assert.equal(new TextDecoder().decode(entries["a/x.ts"]), "x".repeat(100_000));
    assert.ok(first.bytes < 100_000, "content is compressed");

    await Deno.writeTextFile(`${root}/b.ts`, "export const b = 2;\n");
    const third = await createSourceZip({
      repoRoot: root,
      sourceIgnore: [],
      sourceInclude: [],
      outPath: `${out}/3.zip`,
    });
    assert.notEqual(third.sha256, first.sha256);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test({
  name: "createSourceZip() records modes as 0644/0755 so the bytes do not depend on the umask",
  ignore: Deno.build.os === "windows",
  async fn() {
    const root = await makeTree({ "run.sh": "#!/bin/sh\n", "a.txt": "a" });
    const out = await Deno.makeTempDir();
    try {
      await Deno.chmod(`${root}/run.sh`, 0o755);
      await Deno.chmod(`${root}/a.txt`, 0o644);
      const first = await createSourceZip({
        repoRoot: root,
        sourceIgnore: [],
        sourceInclude: [],
        outPath: `${out}/1.zip`,
      });
      // The same tree checked out under umask 002 (group-writable) or 077 (owner only).
      await Deno.chmod(`${root}/run.sh`, 0o775);
      await Deno.chmod(`${root}/a.txt`, 0o600);
      const second = await createSourceZip({
        repoRoot: root,
        sourceIgnore: [],
        sourceInclude: [],
        outPath: `${out}/2.zip`,
      });
      assert.equal(second.sha256, first.sha256);
      const modes = await readZipModes(first.path);
      assert.deepEqual(modes, new Map([["a.txt", 0o644], ["run.sh", 0o755]]));
    } finally {
      await Deno.remove(root, { recursive: true });
      await Deno.remove(out, { recursive: true });
    }
  },
});
