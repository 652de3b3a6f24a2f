/**
 * What `deno task compile` builds: the `token-exchange` and `deploy` binaries for each
 * release target, each with the permission flags of its `deno task` (`start`, `deploy`)
 * baked in, read from the root `deno.json` so the binaries and the tasks cannot drift apart.
 *
 * Pure: the runner (`compile.ts`) reads the files and runs `deno compile`.
 *
 * @module
 */

/** The release targets (Deno's `--target` triples). */
export const TARGETS: readonly string[] = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
];

/** A program and the `deno task` whose `deno run` flags it is compiled with. */
interface Program {
  readonly name: string;
  readonly task: string;
  /** Flags beyond the task's, for what `deno run` reads from `deno.json` itself. */
  readonly extra: readonly string[];
}

const PROGRAMS: readonly Program[] = [
  // The KV API is enabled by the root deno.json's "unstable"; said again so the binary never
  // depends on the compiler carrying the config's setting over.
  { name: "token-exchange", task: "start", extra: ["--unstable-kv"] },
  { name: "deploy", task: "deploy", extra: [] },
];

/** One `deno compile` run. */
export interface CompileJob {
  readonly program: string;
  readonly target: string;
  /** The output file (`dist/<program>-<target>`, `.exe` for Windows). */
  readonly output: string;
  /** Arguments after `deno`: `compile`, flags, `--target`, `--output`, the entry point. */
  readonly args: readonly string[];
}

/**
 * The permission flags and entry point of a `deno run …` task. Arguments after the entry
 * point (`serve` in `start`) are left out: a binary started without a command serves anyway,
 * and baking one in would make every other command unreachable. `$HOME` is expanded now,
 * as `deno task` would at run time: Deno has no way to name "the user's home" in a flag.
 *
 * @param task the task's command line from `deno.json`
 * @param home the home directory to substitute for `$HOME`
 * @returns the flags and the entry point
 * @throws {Error} when the task is not `deno run <flags> <entry>.ts …` or needs an unset `$HOME`
 */
export function taskFlags(
  task: string,
  home: string | undefined,
): { flags: string[]; entry: string } {
  const words = task.trim().split(/\s+/);
  if (words[0] !== "deno" || words[1] !== "run") {
    throw new Error(`not a "deno run" task: ${task}`);
  }
  const at = words.findIndex((w, i) => i > 1 && !w.startsWith("-"));
  const entry = words[at];
  if (at < 0 || !entry?.endsWith(".ts")) throw new Error(`no entry point in: ${task}`);
  const flags = words.slice(2, at).map((flag) => {
    if (!flag.includes("$HOME")) return flag;
    if (!home) throw new Error(`HOME is not set, and the task's ${flag.split("=")[0]} needs it`);
    return flag.replaceAll("$HOME", home.replace(/[\\/]+$/, ""));
  });
  return { flags, entry };
}

/**
 * Every `deno compile` run for `targets`.
 *
 * @param tasks the root `deno.json`'s `tasks`
 * @param targets the targets to build (default {@linkcode TARGETS})
 * @param home the home directory for `$HOME` in the `deploy` task's flags
 * @returns one job per program and target, programs first
 *
 * @example
 * ```ts
 * const tasks = {
 *   start: "deno run --allow-net server/main.ts serve",
 *   deploy: "deno run --allow-net deploy/main.ts",
 * };
 * const jobs = compilePlan(tasks, ["x86_64-unknown-linux-gnu"], "/home/ci");
 * // jobs[0].args: ["compile", "--allow-net", …, "--target", …, "--output", …, "server/main.ts"]
 * ```
 */
export function compilePlan(
  tasks: Readonly<Record<string, string>>,
  targets: readonly string[] = TARGETS,
  home?: string,
): CompileJob[] {
  const jobs: CompileJob[] = [];
  for (const program of PROGRAMS) {
    const task = tasks[program.task];
    if (task === undefined) throw new Error(`deno.json has no "${program.task}" task`);
    const { flags, entry } = taskFlags(task, home);
    for (const target of targets) {
      const output = `dist/${program.name}-${target}${target.includes("windows") ? ".exe" : ""}`;
      jobs.push({
        program: program.name,
        target,
        output,
        args: [
          "compile",
          ...flags,
          ...program.extra,
          "--target",
          target,
          "--output",
          output,
          entry,
        ],
      });
    }
  }
  return jobs;
}
