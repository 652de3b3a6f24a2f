/**
 * `deploy <env>` as shorthand for `deploy deploy <env>`, the form site repositories use
 * (`deno task deploy production`). A first word that is not a command name stands for an
 * environment when its configuration file exists (`config/<env>.jsonc`, or `ops.config.jsonc`
 * for `production`); otherwise the usual errors stand: an unknown command with the closest
 * command suggested, or, when no command is close, no configuration for that environment with
 * the paths looked for.
 *
 * @module
 */
import { join } from "node:path";
import type { Files } from "../config/files.ts";
import { findConfigFile } from "../config/locate.ts";
import { isEnvName } from "../config/env_name.ts";
import { suggest } from "../config/suggest.ts";
import { DeployError } from "../errors.ts";
import { nonCommandWord } from "./args.ts";
import type { CommandTable } from "../command.ts";

/** The deploy command the shorthand stands for. */
export const SHORTHAND_COMMAND = "deploy";

/**
 * The configuration files whose existence makes `word` an environment (pure).
 *
 * @param repoDir the repository root
 * @param env the word
 * @returns `config/<env>.jsonc`, and `ops.config.jsonc` for `production`
 */
export function shorthandCandidates(repoDir: string, env: string): string[] {
  const own = join(repoDir, "config", `${env}.jsonc`);
  return env === "production" ? [own, join(repoDir, "ops.config.jsonc")] : [own];
}

/**
 * Rewrites `argv` when its first word is an environment with a configuration file.
 *
 * @param argv arguments without the program name
 * @param unknown the `unknown_command` error the arguments gave
 * @param table the command table
 * @param repoDir the repository root
 * @param files file access
 * @returns `["deploy", …argv]`
 * @throws {DeployError} `unknown` when a command is close to the word or the word is not an
 *   environment name; `config_not_found` listing the paths looked for otherwise
 */
export async function expandShorthand(
  argv: readonly string[],
  unknown: DeployError,
  table: CommandTable,
  repoDir: string,
  files: Files,
): Promise<string[]> {
  const env = nonCommandWord(argv, table);
  if (env === undefined || !isEnvName(env)) throw unknown;
  const candidates = shorthandCandidates(repoDir, env);
  for (const path of candidates) {
    if (await files.exists(path).catch(() => false)) return [SHORTHAND_COMMAND, ...argv];
  }
  const known = [...table.commands.map((c) => c.name), ...table.groups.map((g) => g.name)];
  if (suggest(env, known) !== undefined) throw unknown;
  return await findConfigFile(candidates, env, files).then(() => [SHORTHAND_COMMAND, ...argv]);
}
