/**
 * Runs the deploy CLI as a site repo runs it: a subprocess under the exact permission flags of
 * the root deno.json `deploy` task (never `-A`), with a cleared environment.
 *
 * @module
 */
import assert from "node:assert/strict";
import { KEEP_NODE_MODULES } from "../support/deno_child.ts";

const WORKSPACE = new URL("../../", import.meta.url);
/** The CLI entry point. */
export const DEPLOY_MAIN: string = new URL("deploy/main.ts", WORKSPACE).pathname;
/**
 * The workspace's deno.json: passed as `--config` because fixture repos live outside the
 * workspace (a site repo gets the import map from the published package).
 */
export const WORKSPACE_DENO_JSON: string = new URL("deno.json", WORKSPACE).pathname;

/**
 * The `deploy` task's permission flags from the root deno.json, `$HOME` expanded as
 * `deno task` does.
 *
 * @param home the value `$HOME` expands to
 */
export async function deployTaskFlags(home: string): Promise<string[]> {
  const task: string = JSON.parse(await Deno.readTextFile(WORKSPACE_DENO_JSON)).tasks.deploy;
  const flags = task.split(" ").filter((w) => w.startsWith("-"));
  assert.ok(!flags.includes("-A") && !flags.includes("--allow-all"), "the task must stay narrow");
  return flags.map((w) => w.replaceAll("$HOME", home));
}

/** What a CLI run printed and returned. */
export interface ProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** How a CLI run is started: arguments, directory, permission flags and environment. */
export interface DeployProcessOptions {
  flags: readonly string[];
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
}

/**
 * The command that runs `deploy <args>` in `cwd` under `flags`, seeing only `env` plus `PATH`
 * (stdout and stderr piped): spawn it to signal the run while it goes.
 */
export function deployProcess(options: DeployProcessOptions): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      KEEP_NODE_MODULES,
      `--config=${WORKSPACE_DENO_JSON}`,
      ...options.flags,
      DEPLOY_MAIN,
      ...options.args,
    ],
    cwd: options.cwd,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}

/**
 * Runs `deploy <args>` in `cwd` under `flags`, seeing only `env` plus `PATH`.
 *
 * @returns exit code and decoded output
 */
export async function runDeployProcess(options: DeployProcessOptions): Promise<ProcessRun> {
  const out = await deployProcess(options).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}
