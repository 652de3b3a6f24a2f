import assert from "node:assert/strict";
import { join } from "node:path";
import { DeployError } from "../errors.ts";
import { denoFiles } from "./files.ts";
import { loadSite } from "./load.ts";

async function withRepo(text: string, fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "deploy-load-" }));
  try {
    await Deno.mkdir(join(root, "config"));
    await Deno.writeTextFile(join(root, "config/production.jsonc"), text);
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const load = (root: string, extra: { accountId?: string } = {}) =>
  loadSite({ env: "production", repoDir: root, cwd: root, files: denoFiles, ...extra });

Deno.test("loadSite() accepts JSONC line and block comments and trailing commas", async () => {
  const text = `// site config
{
  /* the slug */ "siteName": "blog", // trailing comment
  "microvm": { "memory": 2, },
}`;
  await withRepo(text, async (root) => {
    const site = await load(root, { accountId: "123456789012" });
    assert.equal(site.config.siteName, "blog");
    assert.equal(site.config.microvm.memory, 2);
    assert.equal(site.file, join(root, "config/production.jsonc"));
    assert.equal(site.names.bucket, "production-blog-123456789012");
  });
});

Deno.test("loadSite() names the file, line and column of a syntax error", async () => {
  await withRepo('{\n  "siteName": "blog"\n  "region": "x"\n}', async (root) => {
    await assert.rejects(load(root), (err) => {
      assert.ok(err instanceof DeployError);
      assert.equal(err.code, "config_syntax");
      assert.ok(
        err.message.includes(`${join(root, "config/production.jsonc")}:3:3: comma expected`),
        err.message,
      );
      return true;
    });
  });
});

Deno.test("loadSite() throws config_invalid carrying every issue", async () => {
  await withRepo('{ "siteName": "Blog", "microvm": { "memory": 3 } }', async (root) => {
    await assert.rejects(load(root), (err) => {
      assert.ok(err instanceof DeployError);
      assert.equal(err.code, "config_invalid");
      assert.deepEqual(err.issues.map((i) => i.path), ["siteName", "microvm.memory"]);
      return true;
    });
  });
});

Deno.test("loadSite() reads a file saved with a UTF-8 byte-order mark", async () => {
  await withRepo('\uFEFF{ "siteName": "blog" } // saved by a Windows editor', async (root) => {
    assert.equal((await load(root)).config.siteName, "blog");
  });
});

Deno.test("loadSite() reports a __proto__ key as unknown instead of taking it as a prototype", async () => {
  await withRepo('{ "siteName": "blog", "__proto__": { "spa": true } }', async (root) => {
    await assert.rejects(load(root), (err) => {
      assert.ok(err instanceof DeployError);
      assert.equal(err.code, "config_invalid");
      assert.deepEqual(err.issues.map((i) => `${i.path}: ${i.message}`), [
        "__proto__: unknown key",
      ]);
      return true;
    });
  });
});

Deno.test("loadSite() refuses a hostile file as config_too_large or config_syntax, never as a bug", async () => {
  const deep = '{"siteName": "blog", "x": ' + "[".repeat(3000) + "]".repeat(3000) + "}";
  await withRepo(deep, async (root) => {
    await assert.rejects(load(root), (err) => {
      assert.ok(err instanceof DeployError, String(err));
      assert.equal(err.code, "config_too_large");
      assert.match(err.message, /nested deeper than 64 levels/);
      return true;
    });
  });
  await withRepo(`{ "siteName": "blog" ${" ".repeat(300 * 1024)}}`, async (root) => {
    await assert.rejects(load(root), (err) => {
      assert.ok(err instanceof DeployError);
      assert.equal(err.code, "config_too_large");
      return true;
    });
  });
  await withRepo("{\n" + "x y\n".repeat(20_000) + "}", async (root) => {
    await assert.rejects(load(root), (err) => {
      assert.ok(err instanceof DeployError);
      assert.equal(err.code, "config_syntax");
      assert.equal(err.issues.length, 20, "the first error is the message, 19 more and a count");
      assert.match(err.issues.at(-1)!.message, /… and \d+ more/);
      return true;
    });
  });
});
