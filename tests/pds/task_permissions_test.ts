/**
 * The publishing modules run under the deploy task's narrow permission flags: the YAML parser
 * reads its debug switches (`LOG_TOKENS`, `LOG_STREAM`) on every parse, which the task must
 * allow, or `deploy pds sync` and the sync after a deploy would die on a permission error.
 */
import assert from "node:assert/strict";
import { deployTaskFlags, WORKSPACE_DENO_JSON } from "../deploy/deploy_process.ts";
import { KEEP_NODE_MODULES } from "../support/deno_child.ts";

Deno.test("pds: posts parse, and the OAuth and Secrets Manager modules load, under the deploy task's flags", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pds-flags-" });
  try {
    const posts = new URL("../../deploy/pds/posts.ts", import.meta.url).href;
    const cmd = new URL("../../deploy/commands/pds/index.ts", import.meta.url).href;
    await Deno.writeTextFile(
      `${dir}/probe.ts`,
      `import { readPosts } from "${posts}";\nimport "${cmd}";\n` +
        `const r = readPosts([{ path: "a.md", text: "---\\ntitle: T\\ndescription: D\\npubDate: 2026-01-02\\n---\\n" }], "c");\n` +
        `console.log(r.posts.length, r.issues.length);\n`,
    );
    const home = Deno.env.get("HOME") ?? "";
    const flags = (await deployTaskFlags(home)).map((f) =>
      f.startsWith("--allow-read=") ? `${f},${dir}` : f
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        KEEP_NODE_MODULES,
        "--config",
        WORKSPACE_DENO_JSON,
        ...flags,
        `${dir}/probe.ts`,
      ],
      clearEnv: true,
      env: { HOME: home, PATH: Deno.env.get("PATH") ?? "", NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.equal(new TextDecoder().decode(out.stdout).trim(), "1 0");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
