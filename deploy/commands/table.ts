/**
 * The command table: every command the CLI knows. To add a command, write a `Command` (a
 * name, a summary, the flags it accepts, `run(ctx)`) and put it in {@linkcode COMMANDS} in
 * place of its `planned(...)` entry.
 *
 * @module
 */
import type { Command, CommandGroup, CommandTable } from "../command.ts";
import { notImplemented } from "../errors.ts";
import { bootstrapCommand } from "./bootstrap.ts";
import { configCommand } from "./config.ts";
import { deployCommand } from "./deploy.ts";
import { historyCommand } from "./history.ts";
import { logsCommand } from "./logs.ts";
import { rollbackCommand } from "./rollback.ts";
import { deleteCommand } from "./delete.ts";
import { destroyCommand } from "./destroy.ts";
import { initCommand } from "./init.ts";
import { PDS_COMMANDS } from "./pds/index.ts";
import { PREVIEW_COMMANDS } from "./preview/index.ts";
import { planCommand } from "./plan.ts";
import { pluginAddCommand, pluginListCommand, pluginRemoveCommand } from "./plugin/index.ts";
import { statusCommand } from "./status.ts";

/**
 * A registered command this version does not implement: listed in help, and running it
 * fails with `not_implemented` (exit 1).
 *
 * @param name the command name
 * @param summary one line for help
 * @param extra `args`, `flags` or `takesEnv` as the real command will have them
 * @returns the placeholder command
 */
export function planned(
  name: string,
  summary: string,
  extra: Pick<Command, "args" | "flags" | "takesEnv"> = {},
): Command {
  return {
    name,
    summary,
    ...extra,
    planned: true,
    run: () => Promise.reject(notImplemented(name)),
  };
}

/** Every command, in the order help lists them. */
export const COMMANDS: readonly Command[] = [
  initCommand,
  configCommand,
  planCommand,
  deployCommand,
  bootstrapCommand,
  statusCommand,
  historyCommand,
  logsCommand,
  rollbackCommand,
  deleteCommand,
  destroyCommand,
  ...PREVIEW_COMMANDS,
  ...PDS_COMMANDS,
  pluginAddCommand,
  pluginListCommand,
  pluginRemoveCommand,
];

/** Command groups: `deploy <group> <command>`. */
export const GROUPS: readonly CommandGroup[] = [
  { name: "preview", summary: "preview deployments" },
  { name: "pds", summary: "publishing to an AT Protocol PDS (the `pds` section)" },
  { name: "plugin", summary: "plugins: add, list, remove (see docs/plugins.md)" },
];

/** The table the CLI runs with. */
export const COMMAND_TABLE: CommandTable = { commands: COMMANDS, groups: GROUPS };
