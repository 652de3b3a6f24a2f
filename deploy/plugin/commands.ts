/**
 * Turning installed plugins into entries of the command table: each plugin's commands under
 * its namespace, its section checked first (a broken section fails only these commands, with
 * every problem and its key path), then the command run with the site host. Installed plugins
 * that cannot load, and first-party plugins that are not installed, answer for their
 * namespace with an error that says what to do.
 *
 * @module
 */
import type { Command, CommandContext, CommandGroup, CommandTable } from "../command.ts";
import { FIRST_PARTY_SECTIONS, resolvePluginSection } from "../config/plugin_section.ts";
import { DeployError } from "../errors.ts";
import type { DeployPlugin, PluginHost } from "./contract.ts";
import type { DiscoveredPlugin } from "./discover.ts";

/** The plugins released with the CLI, so `deploy <name> …` can say how to install one. */
export const FIRST_PARTY_PLUGINS: readonly CommandGroup[] = FIRST_PARTY_SECTIONS.map((s) => ({
  name: s.namespace,
  summary: s.summary,
}));

/**
 * A plugin's commands for the table: `<namespace> <name>`, each checking the plugin's section
 * before it runs.
 *
 * @param plugin the plugin
 * @param hostFor the site host a command gets
 * @returns the commands
 */
export function pluginCommands(
  plugin: DeployPlugin,
  hostFor: (ctx: CommandContext) => PluginHost,
): Command[] {
  return plugin.commands.map((c): Command => {
    const { run, name, ...rest } = c;
    return {
      ...rest,
      name: `${plugin.namespace} ${name}`,
      async run(ctx) {
        // A plugin command talks to AWS (the site's bucket holds its state): the account is
        // resolved before the configuration is loaded, as for every AWS command, so the site's
        // names include the bucket.
        if (c.planned !== true) await ctx.accountId();
        const config = await ctx.section(
          plugin.configKey,
          (raw, site) => resolvePluginSection(plugin, raw, site),
        );
        return await run(ctx, config, hostFor(ctx));
      },
    };
  });
}

/**
 * The error `deploy <namespace> …` answers when that namespace is a plugin that cannot run:
 * installed but broken (`plugin_invalid`), or first-party and not installed
 * (`plugin_not_installed`, naming `deploy plugin add`). Undefined when the namespace runs.
 *
 * @param namespace the first command word
 * @param discovered the site's plugins
 * @returns the error to throw, if any
 */
export function pluginUnavailable(
  namespace: string,
  discovered: readonly DiscoveredPlugin[],
): DeployError | undefined {
  const found = discovered.find((d) => d.installed.name === namespace);
  if (found) return "error" in found ? found.error : undefined;
  if (!FIRST_PARTY_PLUGINS.some((p) => p.name === namespace)) return undefined;
  return new DeployError(
    "plugin_not_installed",
    `the ${namespace} plugin is not installed in this site`,
    {
      hint:
        `run \`deploy plugin add ${namespace}\` (it adds @org/deploy-${namespace} to deno.json)`,
    },
  );
}

/**
 * The command table with the site's plugins (pure): each loaded plugin's group and commands
 * after the built-in ones; broken and not-installed plugins listed as groups so help shows them.
 *
 * @param builtin the built-in table
 * @param discovered the site's plugins
 * @param hostFor the site host a plugin command gets
 * @returns the table to run with
 */
export function withPlugins(
  builtin: CommandTable,
  discovered: readonly DiscoveredPlugin[],
  hostFor: (ctx: CommandContext) => PluginHost,
): CommandTable {
  const commands = [...builtin.commands];
  const groups = [...builtin.groups];
  for (const d of discovered) {
    if ("plugin" in d) {
      groups.push({
        name: d.plugin.namespace,
        summary: `${d.plugin.summary} (plugin)`,
        plugin: true,
      });
      commands.push(...pluginCommands(d.plugin, hostFor));
    } else {
      groups.push({
        name: d.installed.name,
        summary: `plugin ${d.installed.key} cannot load`,
        plugin: true,
      });
    }
  }
  for (const p of FIRST_PARTY_PLUGINS) {
    if (!groups.some((g) => g.name === p.name)) {
      groups.push({
        name: p.name,
        summary: `${p.summary} (plugin, not installed: \`deploy plugin add ${p.name}\`)`,
        plugin: true,
      });
    }
  }
  return { commands, groups };
}
