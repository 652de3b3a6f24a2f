/**
 * The `deploy` task a repository runs the CLI with, under narrow permissions: the same flags
 * for this workspace's own task (`deno.json`, entry `deploy/main.ts`) and for the task
 * `deploy init` writes into a site repository (entry `jsr:@org/deploy`), so
 * `deno task deploy production` and `deno task deploy bootstrap production` work there.
 *
 * @module
 */
import type { PackageManager } from "../job/package_manager.ts";

/**
 * Every program the CLI may run: `git` or `jj` (the build is named after the revision), the
 * site's package manager (`--builder local` and `plan` install and build with it; `deno` only as
 * a package manager), `node` (`node --version`, part of the build cache's key for npm, pnpm and
 * Yarn), and `kill` (a build's process group is stopped with it).
 */
export const RUN_TOOLS: readonly string[] = [
  "git",
  "jj",
  "deno",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "node",
  "kill",
];

/** The package managers that run on Node.js: the cache key asks `node` for its version. */
const ON_NODE: readonly PackageManager[] = ["npm", "pnpm", "yarn"];

/** The package managers a local build may run (see `deploy/job/package_manager.ts`). */
const PACKAGE_MANAGERS: readonly PackageManager[] = ["deno", "npm", "pnpm", "yarn", "bun"];

/**
 * The permission flags of the deploy task (`$HOME` is expanded by `deno task`). `--quiet`: Deno
 * prints one `Info Failed to resolve '<tool>' for allow-run` line per `--allow-run` program
 * missing on the machine before every command; nothing else it would print matters here.
 *
 * @param run the programs `--allow-run` names (default {@linkcode RUN_TOOLS})
 * @returns the flags, in order
 */
export function deployTaskFlags(run: readonly string[] = RUN_TOOLS): string[] {
  return [
    "--quiet",
    "--no-prompt",
    "--allow-read=.,$HOME/.aws,$HOME/.cache/org-deploy",
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
