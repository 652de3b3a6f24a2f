import assert from "node:assert/strict";
import { join } from "node:path";
import { KEEP_NODE_MODULES } from "../tests/support/deno_child.ts";
import { REPO_ROOT, spawnTokenServer } from "../tests/support/token_server.ts";

/** Runs `deno task compile <args>` in the repository with `env` added. */
async function compileTask(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", KEEP_NODE_MODULES, "--quiet", "compile", ...args],
    cwd: REPO_ROOT,
    env: { NO_COLOR: "1", ...env },
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("deno task compile: a runtime that cannot be downloaded fails with what to do", async () => {
  const denoDir = await Deno.makeTempDir({ prefix: "compile-deno-dir-" });
  try {
    // An empty cache and a proxy that refuses: the download fails here as it does offline.
    const out = await compileTask(["--target", "aarch64-apple-darwin"], {
      DENO_DIR: denoDir,
      HTTPS_PROXY: "http://127.0.0.1:9",
      HTTP_PROXY: "http://127.0.0.1:9",
    });
    assert.equal(out.code, 1, out.stdout + out.stderr);
    const cache = join(denoDir, "dl", "release", `v${Deno.version.deno}`);
    assert.match(
      out.stderr,
      new RegExp(`the denort runtime for aarch64-apple-darwin is not in ${cache} and could not`),
    );
    assert.match(out.stderr, /set DENORT_BIN=\/path\/to\/denort/);
    assert.equal(out.stderr.trim().split("\n").length, 1, out.stderr);
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});

const denort = Deno.env.get("DENORT_BIN");
if (!denort) {
  // deno-lint-ignore no-console -- the one line that says why the binary smoke test did not run
  console.log("compiled-binary smoke test skipped: set DENORT_BIN to a local denort to run it");
}

Deno.test({
  name:
    "deno task compile with DENORT_BIN: the host binaries run, and the service serves with its KV under ./data",
  ignore: !denort,
  async fn() {
    const out = await compileTask([], { DENORT_BIN: denort! });
    assert.equal(out.code, 0, out.stderr);
    const exe = (name: string) =>
      join(
        REPO_ROOT,
        "dist",
        `${name}-${Deno.build.target}${Deno.build.os === "windows" ? ".exe" : ""}`,
      );
    const help = await new Deno.Command(exe("deploy"), { args: ["--help"] }).output();
    assert.equal(help.code, 0);
    const server = await spawnTokenServer({
      env: { TOKEN_EXCHANGE__SERVER__PORT: "0" },
      program: { path: exe("token-exchange"), args: [] },
    });
    try {
      const health = await fetch(`${server.url}/health`);
      assert.equal(health.status, 200);
      await health.body?.cancel();
      // The baked-in --allow-write=./data put the KV file there.
      assert.ok((await Deno.stat(join(server.dir, "data", "token-exchange.kv"))).isFile);
    } finally {
      const { code, stderr } = await server.stop("SIGTERM");
      assert.equal(code, 0, stderr);
      await Deno.remove(server.dir, { recursive: true });
    }
  },
});
