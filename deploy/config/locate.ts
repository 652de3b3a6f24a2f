/**
 * Finding the repository root and the configuration file for an environment.
 *
 * @module
 */
import { initCommandFor } from "./env_name.ts";
import { dirname, join, resolve } from "node:path";
import { DeployError } from "../errors.ts";
import type { Files } from "./files.ts";

/** Directories that mark a repository root. */
export const REPO_MARKERS = [".git", ".jj"] as const;

/**
 * The nearest ancestor of `cwd` (itself included) containing `.git` or `.jj`.
 *
 * @param cwd absolute working directory
 * @param files file access
 * @returns the repository root, or `undefined` when no ancestor has a marker
 */
export async function findRepoRoot(cwd: string, files: Files): Promise<string | undefined> {
  let dir = resolve(cwd);
  while (true) {
    for (const marker of REPO_MARKERS) {
      try {
        if (await files.exists(join(dir, marker))) return dir;
      } catch (err) {
        // Under narrow --allow-read the ancestors are off limits: the walk ends there.
        if (err instanceof Deno.errors.NotCapable) return undefined;
        throw err;
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The configuration files tried, in order: `config/<env>.jsonc`, then `ops.config.jsonc`;
 * with `--config` that file alone (relative to the working directory).
 *
 * @param repoDir repository root
 * @param env environment name
 * @param options `configFlag` from `--config`, and `cwd` to resolve it against
 * @returns absolute candidate paths, first match wins
 */
export function configCandidates(
  repoDir: string,
  env: string,
  options: { configFlag?: string | undefined; cwd: string },
): string[] {
  if (options.configFlag !== undefined) return [resolve(options.cwd, options.configFlag)];
  return [join(repoDir, "config", `${env}.jsonc`), join(repoDir, "ops.config.jsonc")];
}

/**
 * The first candidate that exists.
 *
 * @param candidates paths from {@linkcode configCandidates}
 * @param env environment name, for the message
 * @param files file access
 * @param fromFlag the only candidate came from `--config` (the hint then points at the path,
 *   not at `deploy init`, which would create a different file)
 * @returns the path of the configuration file
 * @throws {DeployError} `config_not_found`, listing every path looked for
 */
export async function findConfigFile(
  candidates: readonly string[],
  env: string,
  files: Files,
  fromFlag = false,
): Promise<string> {
  for (const path of candidates) {
    try {
      if (await files.exists(path)) return path;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotCapable)) throw err;
      throw new DeployError("config_unreadable", `not allowed to read ${path}`, {
        hint: "the deploy task's --allow-read must cover the repository (see README)",
        cause: err,
      });
    }
  }
  if (fromFlag) {
    throw new DeployError("config_not_found", `--config file not found: ${candidates.join(", ")}`, {
      hint: "check the path (a relative --config is resolved against the working directory)",
    });
  }
  throw new DeployError(
    "config_not_found",
    `no configuration for environment "${env}": looked for ${candidates.join(", ")}`,
    {
      hint: `run \`${initCommandFor(env)}\` to create config/${env}.jsonc, or pass --config PATH`,
    },
  );
}
