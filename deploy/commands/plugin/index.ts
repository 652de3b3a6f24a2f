/**
 * `deploy plugin add|list|remove`: a plugin is installed by one entry in the site's `deno.json`
 * `imports`, written as `deno add` would (`@org/deploy-<name>` →
 * `jsr:@org/deploy-<name>@^<the CLI's version>`); `list` loads the installed ones (the only
 * built-in command that does); `remove` deletes the entry and leaves the plugin's AWS resources
 * alone (its own `destroy` removes those). This file holds each subcommand's name and help;
 * its action sits beside it, one file per subcommand.
 *
 * @module
 */
import type { Command } from "../../command.ts";
import { pluginAdd } from "./add.ts";
import { pluginList } from "./list.ts";
import { pluginRemove } from "./remove.ts";

/** `deploy plugin add <name>`. */
export const pluginAddCommand: Command = {
  name: "plugin add",
  summary: "install a plugin in this site (an import in its deno.json)",
  args: ["name"],
  takesEnv: false,
  help: "Adds @org/deploy-<name> to the site's deno.json imports, pinned to this CLI's version,\n" +
    "as `deno add` would. The plugin's commands are then `deploy <name> …`. Nothing else is\n" +
    "written and nothing is created in AWS.",
  run: pluginAdd,
};

/** `deploy plugin remove <name>`. */
export const pluginRemoveCommand: Command = {
  name: "plugin remove",
  summary: "uninstall a plugin (its AWS resources stay: run its destroy first)",
  args: ["name"],
  takesEnv: false,
  help: "Removes @org/deploy-<name> from the site's deno.json imports. The plugin's AWS\n" +
    "resources and state are not touched: run `deploy <name> destroy --yes` first to remove them.",
  run: pluginRemove,
};

/** `deploy plugin list`. */
export const pluginListCommand: Command = {
  name: "plugin list",
  summary: "show the installed plugins and their commands",
  takesEnv: false,
  help: "Loads every plugin the site's deno.json installs and shows its namespace, version\n" +
    "specifier and commands; a plugin that cannot load is shown with the reason.",
  run: pluginList,
};
