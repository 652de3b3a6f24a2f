/**
 * Finding and loading a site's plugins, and when to: only when a plugin command, `--help` (or
 * no command) or `plugin list` runs. Built-in commands never load one.
 *
 * @module
 */
import { parseJsonc } from "@org/shared";
import { DeployError } from "../errors.ts";
import type { CommandTable } from "../command.ts";
import { type DeployPlugin, isDeployPlugin } from "./contract.ts";
import { type InstalledPlugin, installedPlugins, PLUGIN_NAME } from "./site_imports.ts";

/** The longest plugin name looked for (a package name part; longer words are no plugin). */
export const MAX_PLUGIN_NAME = 64;

/**
 * Whether an invocation may need the plugins (pure): when its first word is no built-in command
 * or group (a plugin's namespace, the `deploy <env>` shorthand or a typo: the caller tells them
 * apart from the site's installed names), or when help for everything is asked (`--help` with
 * no command). `plugin list` loads them itself.
 *
 * @param words the positional words of argv, in order
 * @param helpAsked whether `--help`/`-h` is present
 * @param builtin the built-in command table
 * @returns true when plugins must be loaded
 *
 * @example
 * ```ts
 * const run = () => Promise.resolve();
 * const builtin = { commands: [{ name: "bootstrap", summary: "", run }], groups: [] };
 *
 * if (needsPlugins(["bootstrap"], false, builtin)) throw new Error("a core command");
 * if (!needsPlugins(["analytics", "status"], false, builtin)) throw new Error("a plugin's");
 * ```
 */
export function needsPlugins(
  words: readonly string[],
  helpAsked: boolean,
  builtin: CommandTable,
): boolean {
  const [first] = words;
  if (first === undefined) return helpAsked;
  // Only a word that can name a plugin makes the site's deno.json worth reading.
  if (first.length > MAX_PLUGIN_NAME || !PLUGIN_NAME.test(first)) return false;
  const isBuiltin =
    builtin.commands.some((c) => c.name === first || c.name.startsWith(`${first} `)) ||
    builtin.groups.some((g) => g.name === first);
  return !isBuiltin;
}

/** A plugin as discovery found it: loaded, or why not. */
export type DiscoveredPlugin =
  | { readonly installed: InstalledPlugin; readonly plugin: DeployPlugin }
  | { readonly installed: InstalledPlugin; readonly error: DeployError };

/**
 * Loads every plugin the site's `deno.json` installs, each by its import key (so the site's
 * import map decides the version). A plugin that fails to load, or whose default export is not a
 * plugin, is returned with a `plugin_invalid` error instead of failing the others.
 *
 * @param denoJsonText the site's `deno.json` text (null when it has none)
 * @param importPlugin imports a module by specifier (`(s) => import(s)` in the CLI)
 * @returns the plugins, sorted by name
 */
export async function discoverPlugins(
  denoJsonText: string | null,
  importPlugin: (specifier: string) => Promise<unknown>,
): Promise<DiscoveredPlugin[]> {
  if (denoJsonText === null) return [];
  const installed = installedPlugins(parseJsonc(denoJsonText, "deno.json"));
  return await Promise.all(installed.map(async (p): Promise<DiscoveredPlugin> => {
    try {
      const mod = await importPlugin(p.key) as { default?: unknown } | null;
      const plugin = mod?.default;
      if (!isDeployPlugin(plugin)) {
        return {
          installed: p,
          error: new DeployError(
            "plugin_invalid",
            `${p.key} (${p.specifier}) is not a deploy plugin: its default export lacks the contract`,
            {
              hint:
                `reinstall it: \`deploy plugin remove ${p.name}\`, then \`deploy plugin add ${p.name}\``,
            },
          ),
        };
      }
      if (plugin.namespace !== p.name) {
        return {
          installed: p,
          error: new DeployError(
            "plugin_invalid",
            `${p.key} declares the namespace "${plugin.namespace}", not "${p.name}"`,
            { hint: "a plugin @org/deploy-<name> must use <name> as its namespace" },
          ),
        };
      }
      return { installed: p, plugin };
    } catch (err) {
      return {
        installed: p,
        error: new DeployError(
          "plugin_invalid",
          `${p.key} (${p.specifier}) could not be loaded: ${
            err instanceof Error ? err.message.split("\n")[0] : String(err)
          }`,
          {
            hint: "check the import in the site's deno.json (`deno install` fetches it), or " +
              `remove the plugin with \`deploy plugin remove ${p.name}\``,
            cause: err,
          },
        ),
      };
    }
  }));
}
