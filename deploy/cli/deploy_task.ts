/**
 * The `deploy` task a repository runs the CLI with, under narrow permissions: the same flags
 * for this workspace's own task (`deno.json`, entry `deploy/main.ts`) and for the task
 * `deploy init` writes into a site repository, so `deno task deploy production` and
 * `deno task deploy bootstrap production` work there. A site runs the CLI one of two ways:
 * the published package (`jsr:@org/deploy`, through a tiny launcher that turns a registry that
 * cannot be reached into one line instead of Deno's error and backtrace), or a checkout of this
 * repository (its `deploy/main.ts`, with its `deno.json` and read access to it).
 *
 * @module
 */
import type { PackageManager } from "../job/package_manager.ts";

/** The package managers a local build may run (see `deploy/job/package_manager.ts`). */
const PACKAGE_MANAGERS: readonly PackageManager[] = ["deno", "npm", "pnpm", "yarn", "bun"];

/**
 * Every program the CLI may run: `git` or `jj` (the build is named after the revision), the
 * site's package manager (`--builder local` and `plan` install and build with it; `deno` only as
 * a package manager), `node` (`node --version`, part of the build cache's key for npm, pnpm and
 * Yarn), and `kill` (a build's process group is stopped with it).
 */
export const RUN_TOOLS: readonly string[] = ["git", "jj", ...PACKAGE_MANAGERS, "node", "kill"];

/** The package managers that run on Node.js: the cache key asks `node` for its version. */
const ON_NODE: readonly PackageManager[] = ["npm", "pnpm", "yarn"];

/**
 * One word of a task command as `deno task`'s shell reads it (pure): as it is when it is plain,
 * else in single quotes, so a checkout under `/Users/Jane Doe/src` stays one word. Quoted parts
 * and plain ones next to each other make one word, so a quoted path can sit in a flag's list
 * beside a `$HOME/…` the shell still expands.
 *
 * @param text a path or other literal text
 * @returns the text, quoted when it holds anything but letters, digits and `@%+=:,./_-`
 *
 * @example
 * ```ts
 * taskShellWord("/src/deploy"); // "/src/deploy"
 * taskShellWord("/Users/Jane Doe/it's"); // "'/Users/Jane Doe/it'\"'\"'s'"
 * ```
 */
export function taskShellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'"'"'`)}'`;
}

/**
 * The permission flags of the deploy task (`$HOME` is expanded by `deno task`). `--quiet`: Deno
 * prints one `Info Failed to resolve '<tool>' for allow-run` line per `--allow-run` program
 * missing on the machine before every command; nothing else it would print matters here.
 *
 * @param run the programs `--allow-run` names (default {@linkcode RUN_TOOLS})
 * @param read more folders to read besides the repository (a checkout the CLI runs from: its
 *   plugins are imported from there), quoted here for the task's shell
 * @returns the flags, in order
 */
export function deployTaskFlags(
  run: readonly string[] = RUN_TOOLS,
  read: readonly string[] = [],
): string[] {
  return [
    "--quiet",
    "--no-prompt",
    `--allow-read=${
      [".", ...read.map(taskShellWord), "$HOME/.aws", "$HOME/.cache/org-deploy"].join(",")
    }`,
    "--allow-write=.,$HOME/.cache/org-deploy",
    "--allow-env=AWS_*,DEPLOY_BUILDER_BASE_IMAGE,DEBUG,NO_COLOR,HOME,USERPROFILE,HOMEPATH,HOMEDRIVE,_X_AMZN_TRACE_ID,LOG_TOKENS,LOG_STREAM",
    "--allow-sys=osRelease",
    "--allow-net",
    `--allow-run=${run.join(",")}`,
  ];
}

/**
 * The programs a site's task lets the CLI run (pure): its VCS, its package manager (every one
 * while none is known yet, so a lockfile added later still builds), `node` beside a manager that
 * runs on it (the build cache's key holds its version), and `kill`.
 *
 * @param vcs `jj` when the repository has a `.jj` directory, else `git`
 * @param manager the package manager its lockfile names, if any
 * @returns the `--allow-run` list
 *
 * @example
 * ```ts
 * siteRunTools("git", "npm"); // ["git", "npm", "node", "kill"]
 * ```
 */
export function siteRunTools(vcs: "git" | "jj", manager: PackageManager | undefined): string[] {
  const managers = manager ? [manager] : PACKAGE_MANAGERS;
  const node = managers.some((m) => ON_NODE.includes(m)) ? ["node"] : [];
  return [vcs, ...managers, ...node, "kill"];
}

/** The entry point a site repository's task runs. */
export const SITE_DEPLOY_ENTRY = "jsr:@org/deploy";

/** Where the CLI a site's task runs comes from. */
export type DeploySource =
  | { readonly kind: "package" }
  | { readonly kind: "checkout"; readonly root: string };

/**
 * Where the running CLI comes from (pure): a checkout when its files are local (`file:`), the
 * published package otherwise.
 *
 * @param moduleUrl a URL inside the CLI's `deploy/` folder (its `config.schema.json`, `main.ts`)
 * @returns the source; a checkout's root is the folder holding `deploy/`
 */
export function deploySourceOf(moduleUrl: string): DeploySource {
  if (!moduleUrl.startsWith("file:")) return { kind: "package" };
  const root = new URL("../", moduleUrl).pathname.replace(/\/$/, "");
  return { kind: "checkout", root: decodeURIComponent(root) };
}

/** The launcher `init` writes into a site for the published package (repository-relative). */
export const SITE_LAUNCHER = ".deploy/launch.ts";

/**
 * How to run the CLI from a checkout when the package cannot be loaded: named by every message
 * that reports a failing `jsr:` import (the README's "Deploying a site" has the steps).
 */
export const FROM_CHECKOUT_HINT =
  "to run it from a checkout of the deploy repository instead, run that checkout's " +
  'deploy/main.ts init in this folder (README, "Deploying a site")';

/**
 * The launcher's source (pure): imports the package and runs its `main`; when the import fails
 * (no JSR registry here, as in air-gapped CI or before a first publish), it prints one line
 * naming the package and the checkout way and exits 1. Deno's own failure to load a `jsr:` main
 * module is a multi-line error, with a Rust backtrace under `RUST_BACKTRACE`, before any of the
 * CLI's code runs: only a local module can catch it.
 *
 * @returns the TypeScript text of {@linkcode SITE_LAUNCHER}
 */
export function launcherSource(): string {
  return [
    "// Written by `deploy init`: runs the deploy CLI from its published package, and says in",
    '// one line what to do when the package cannot be loaded. Docs: README, "Deploying a site".',
    "let cli: { main(args: string[]): Promise<number> };",
    "try {",
    `  cli = await import(${JSON.stringify(SITE_DEPLOY_ENTRY)});`,
    "} catch (err) {",
    '  const why = String(err instanceof Error ? err.message : err).split("\\n")[0];',
    "  // deno-lint-ignore no-console",
    "  console.error(",
    `    \`deploy: cannot load ${SITE_DEPLOY_ENTRY} (\${why}); ${FROM_CHECKOUT_HINT}\`,`,
    "  );",
    "  Deno.exit(1);",
    "}",
    "Deno.exit(await cli.main(Deno.args));",
    "",
  ].join("\n");
}

/**
 * The task command a site's `deno.json` gets for a source (pure): the package through
 * {@linkcode SITE_LAUNCHER}, or a checkout's `deploy/main.ts` with the checkout's `deno.json`
 * (its import map and `node_modules`) and read access to the checkout added to the same flags.
 *
 * @param source the package, or a checkout's root
 * @param run the programs `--allow-run` names
 * @returns `deno run <flags> <entry>`
 *
 * @example
 * ```ts
 * siteDeployTaskCommand({ kind: "checkout", root: "/src/deploy" }, ["git", "npm", "kill"]);
 * // deno run --config=/src/deploy/deno.json --quiet … --allow-read=.,/src/deploy,… /src/deploy/deploy/main.ts
 * ```
 */
export function siteDeployTaskCommand(source: DeploySource, run: readonly string[]): string {
  if (source.kind === "package") {
    return ["deno", "run", ...deployTaskFlags(run), `./${SITE_LAUNCHER}`].join(" ");
  }
  return [
    "deno",
    "run",
    `--config=${taskShellWord(`${source.root}/deno.json`)}`,
    ...deployTaskFlags(run, [source.root]),
    taskShellWord(`${source.root}/deploy/main.ts`),
  ].join(" ");
}

/**
 * The task command for an entry point (pure).
 *
 * @param entry `deploy/main.ts` in this workspace, {@linkcode SITE_DEPLOY_ENTRY} in a site
 * @param run the programs `--allow-run` names (default {@linkcode RUN_TOOLS})
 * @returns `deno run <flags> <entry>`
 */
export function deployTaskCommand(entry: string, run: readonly string[] = RUN_TOOLS): string {
  return ["deno", "run", ...deployTaskFlags(run), entry].join(" ");
}

/** What {@linkcode withDeployTask} decided for a `deno.json`. */
export type DeployTaskEdit =
  | { readonly action: "added"; readonly text: string }
  | { readonly action: "kept" }
  | { readonly action: "unreadable"; readonly reason: string };

/**
 * Adds the `deploy` task to a `deno.json` text (pure). An existing `deploy` task is kept as the
 * site wrote it; a file that is not plain JSON (comments, a syntax error) is left alone, so no
 * comment is ever lost.
 *
 * @param text the file's current text
 * @param command the task command
 * @returns the new text, or why it is left as it is
 */
export function withDeployTask(text: string, command: string): DeployTaskEdit {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { action: "unreadable", reason: err instanceof Error ? err.message : String(err) };
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    return { action: "unreadable", reason: "it is not a JSON object" };
  }
  const config = json as Record<string, unknown>;
  const tasks = config.tasks;
  if (
    tasks !== undefined && (tasks === null || typeof tasks !== "object" || Array.isArray(tasks))
  ) {
    return { action: "unreadable", reason: "its tasks are not an object" };
  }
  if (tasks !== undefined && "deploy" in tasks) return { action: "kept" };
  const next = { ...config, tasks: { ...(tasks ?? {}), deploy: command } };
  return { action: "added", text: JSON.stringify(next, null, 2) + "\n" };
}
