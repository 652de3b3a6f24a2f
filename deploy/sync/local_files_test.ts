import assert from "node:assert/strict";
import { scanSite } from "./local_files.ts";

async function tree(files: Record<string, string>): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "dist-" });
  for (const [path, body] of Object.entries(files)) {
    const abs = `${root}/${path}`;
    await Deno.mkdir(abs.slice(0, abs.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(abs, body);
  }
  return root;
}

Deno.test({
  name: "scanSite() follows symlinked files and directories, and skips a link back up the tree",
  ignore: Deno.build.os === "windows",
  async fn() {
    const shared = await tree({ "img/a.png": "png", "b.txt": "b" });
    const dist = await tree({ "index.html": "<h1>hi</h1>" });
    try {
      await Deno.symlink(`${shared}/img`, `${dist}/media`);
      await Deno.symlink(`${shared}/b.txt`, `${dist}/b.txt`);
      await Deno.symlink(dist, `${dist}/loop`);
      await Deno.symlink(`${dist}/missing`, `${dist}/dangling`);
      const files = await scanSite(dist);
      assert.deepEqual(files.map((f) => f.key), ["b.txt", "index.html", "media/a.png"]);
    } finally {
      await Deno.remove(dist, { recursive: true });
      await Deno.remove(shared, { recursive: true });
    }
  },
});

Deno.test("scanSite() never publishes .git or .jj, as a directory or a file", async () => {
  const dist = await tree({
    "index.html": "x",
    ".git/config": "[core]",
    ".jj/repo/store": "x",
    "sub/.git": "gitdir: ../.git/worktrees/sub",
    ".gitignore": "node_modules/",
  });
  try {
    const files = await scanSite(dist);
    assert.deepEqual(files.map((f) => f.key), [".gitignore", "index.html"]);
  } finally {
    await Deno.remove(dist, { recursive: true });
  }
});
