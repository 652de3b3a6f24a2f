// deno-lint-ignore-file no-console -- a build script reports what it built
/**
 * `deno task compile [--target T]…`: builds the release binaries into `dist/` (see
 * `compile_plan.ts` for what and with which flags).
 *
 * `deno compile` embeds the program in `denort`, a runtime it downloads per target from
 * dl.deno.land into `$DENO_DIR/dl` on first use. Where that host is unreachable, a target
 * whose runtime is not cached fails with a message saying so and what to do (exit 1).
 * `DENORT_BIN=/path/to/denort` makes `deno compile` use that runtime for every target, so with
 * it only this machine's own target is built.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { type CompileJob, compilePlan, TARGETS } from "./compile_plan.ts";

const root = new URL("..", import.meta.url).pathname;
const { values } = parseArgs({
  args: Deno.args,
  options: { target: { type: "string", multiple: true } },
});
const host = Deno.build.target;
const denortBin = Deno.env.get("DENORT_BIN") || undefined;
const targets = values.target ?? (denortBin ? [host] : [...TARGETS]);
for (const t of targets) {
  if (!TARGETS.includes(t)) fail(`unknown target ${t}; one of: ${TARGETS.join(", ")}`);
  if (denortBin && t !== host) {
    fail(
      `DENORT_BIN is one runtime, for this machine (${host}): it cannot build ${t}. ` +
        "Unset DENORT_BIN to build other targets from downloaded runtimes.",
    );
  }
}

const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE");
let jobs: CompileJob[];
try {
  jobs = compilePlan(config.tasks, targets, home);
} catch (err) {
  fail((err as Error).message);
}
const cache = await runtimeCache();
await Deno.mkdir(join(root, "dist"), { recursive: true });

const missing = new Set<string>();
for (const job of jobs) {
  if (missing.has(job.target)) continue;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...job.args],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.success) {
    console.log(`compile: ${job.output}`);
    continue;
  }
  const stderr = new TextDecoder().decode(out.stderr);
  // "Setting up base binary" is deno compile's step that fetches the runtime.
  if (!denortBin && stderr.includes("base binary") && !await exists(runtimeZip(job.target))) {
    missing.add(job.target);
    continue;
  }
  console.error(stderr.trim());
  fail(`deno compile failed for ${job.output}`);
}
if (missing.size > 0) {
  fail(
    `the denort runtime for ${[...missing].join(", ")} is not in ${cache} and could not be ` +
      `downloaded from dl.deno.land (deno compile embeds the program in it). On a machine ` +
      `that reaches dl.deno.land, run deno task compile once (or copy denort-<target>.zip ` +
      `into ${cache}); or set DENORT_BIN=/path/to/denort to build for this machine (${host}) ` +
      "only. See docs/operations.md#release-binaries.",
  );
}
console.log(`compile: ${jobs.length} binaries in dist/`);

function runtimeZip(target: string): string {
  return join(cache, `denort-${target}.zip`);
}

/** `$DENO_DIR/dl/release/v<version>`: where `deno compile` keeps downloaded runtimes. */
async function runtimeCache(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  const denoDir = JSON.parse(new TextDecoder().decode(out.stdout)).denoDir as string;
  return join(denoDir, "dl", "release", `v${Deno.version.deno}`);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

function fail(message: string): never {
  console.error(`compile: ${message}`);
  Deno.exit(1);
}
