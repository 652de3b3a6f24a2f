import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("without --allow-ffi the plugin loads, and DuckDB says which flag it needs", async () => {
  const script = `
    const plugin = (await import(${
    JSON.stringify(new URL("../mod.ts", import.meta.url).href)
  })).default;
    const { openLocalTable } = await import(${
    JSON.stringify(new URL("./local_table.ts", import.meta.url).href)
  });
    const names = plugin.commands.map((c) => c.name).join(",");
    try {
      await openLocalTable();
      console.log(names, "opened");
    } catch (err) {
      console.log(names, err.code, err.message);
    }`;
  // A file run with `deno run` (eval would grant everything), under the deploy task's kind of
  // flags: read, env, sys, but no --allow-ffi.
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(file, script);
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--no-check",
      `--config=${ROOT}deno.json`,
      "--allow-read",
      "--allow-env",
      "--allow-sys",
      file,
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output().finally(() => Deno.remove(file));
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.match(
    text,
    /bootstrap,status,destroy,dashboard,backfill,export query_engine_unavailable .*--allow-ffi/,
    text,
  );
});
