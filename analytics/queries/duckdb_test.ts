import assert from "node:assert/strict";
import { addonFolder, QUERY_CONNECTIONS } from "./duckdb.ts";
import { insertRows } from "./insert_rows.ts";
import { openLocalTable } from "./local_table.ts";
import { KNOWN_ROWS } from "./_test_rows.ts";
import { fileURLToPath } from "node:url";
import { KEEP_NODE_MODULES } from "../../tests/support/deno_child.ts";

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
      KEEP_NODE_MODULES,
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
    /bootstrap,status,destroy,dashboard,backfill,export,digest query_engine_unavailable .*--allow-ffi/,
    text,
  );
});

Deno.test("a source lends at most QUERY_CONNECTIONS pooled connections, UTC, seeing its table", async () => {
  using source = await openLocalTable();
  await insertRows(source, KNOWN_ROWS);
  let active = 0;
  let most = 0;
  const gates: Array<() => void> = [];
  const seen = new Set<unknown>();
  const asked = Array.from({ length: QUERY_CONNECTIONS + 2 }, () =>
    source.use(async (c) => {
      seen.add(c);
      most = Math.max(most, ++active);
      // Hold the connection until the test lets go, so the callers beyond the pool must wait.
      await new Promise<void>((resolve) => gates.push(resolve));
      const row = (await c.runAndReadAll(
        `SELECT current_setting('TimeZone') AS tz, count(*) AS n FROM ${source.relation}`,
      )).getRowObjectsJS()[0]!;
      active--;
      return row;
    }));
  // Let go one at a time: each release hands the connection to the next waiting caller.
  let answered = 0;
  const all = Promise.all(asked).then((rows) => (answered = rows.length, rows));
  while (answered === 0) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    gates.shift()?.();
  }
  const rows = await all;
  assert.equal(most, QUERY_CONNECTIONS);
  assert.equal(seen.size, QUERY_CONNECTIONS);
  for (const r of rows) assert.deepEqual(r, { tz: "UTC", n: 10n });
});

Deno.test("addonFolder() names the checkout's node_modules when the site's does not hold the addon", () => {
  const checkout = "file:///src/deploy/analytics/queries/duckdb.ts";
  assert.equal(addonFolder(checkout, "/src/blog"), "/src/deploy/node_modules");
  assert.equal(addonFolder(checkout, "/src/deploy"), "./node_modules");
  assert.equal(addonFolder(checkout, undefined), "/src/deploy/node_modules");
  assert.equal(
    addonFolder("https://jsr.io/@org/deploy-analytics/1.0.0/queries/duckdb.ts", "/src/blog"),
    "./node_modules",
  );
});
