import assert from "node:assert/strict";
import { extractZip } from "./unzip.ts";
import { createSourceZip } from "../source/zip.ts";
import { makeTree } from "../source/_test_tree.ts";

Deno.test({
  name: "extractZip() restores the execute bit recorded in the zip and leaves other files 0644",
  ignore: Deno.build.os === "windows",
  async fn() {
    const repo = await makeTree({
      "gradlew": "#!/bin/sh\necho hi\n",
      "bin/build.sh": "x",
      "a.txt": "a",
    });
    const out = await Deno.makeTempDir();
    try {
      await Deno.chmod(`${repo}/gradlew`, 0o755);
      await Deno.chmod(`${repo}/bin/build.sh`, 0o700);
      const zip = await createSourceZip({
        repoRoot: repo,
        sourceIgnore: [],
        sourceInclude: [],
        outPath: `${out}/src.zip`,
      });
      const dest = `${out}/x`;
      await Deno.mkdir(dest);
      assert.equal(await extractZip(zip.path, dest), 3);
      assert.equal((await Deno.stat(`${dest}/gradlew`)).mode! & 0o111, 0o111);
      assert.equal((await Deno.stat(`${dest}/bin/build.sh`)).mode! & 0o111, 0o111);
      assert.equal((await Deno.stat(`${dest}/a.txt`)).mode! & 0o111, 0);
    } finally {
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(out, { recursive: true });
    }
  },
});
