// deno-lint-ignore-file no-console -- the bench runner prints its results
/**
 * Runs every benchmark in `bench/` (each file but this one), one after another, each in its own
 * Deno process so one benchmark's warm caches or open resources do not colour the next.
 *
 * `deno task bench` runs them all; `deno task bench token` runs the files whose names contain
 * `token`. Each benchmark prints `name: value unit` lines.
 *
 * @module
 */

const filters = Deno.args;
const dir = new URL(".", import.meta.url);
const files: string[] = [];
for await (const entry of Deno.readDir(dir)) {
  if (!entry.isFile || !entry.name.endsWith(".ts") || entry.name === "main.ts") continue;
  if (entry.name.endsWith("_test.ts")) continue;
  if (filters.length > 0 && !filters.some((f) => entry.name.includes(f))) continue;
  files.push(entry.name);
}
files.sort();
if (files.length === 0) {
  console.error(`bench: no benchmark matches ${filters.join(" ") || "(any)"}`);
  Deno.exit(1);
}
let failed = 0;
for (const name of files) {
  console.log(`# ${name}`);
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", new URL(name, dir).pathname],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) {
    failed++;
    console.error(`bench: ${name} exited ${code}`);
  }
}
Deno.exit(failed === 0 ? 0 : 1);
