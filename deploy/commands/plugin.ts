/**
 * `deploy plugin add|list|remove`: a plugin is installed by one entry in the site's `deno.json`
 * `imports`, written as `deno add` would (`@org/deploy-<name>` →
 * `jsr:@org/deploy-<name>@^<the CLI's version>`); `list` loads the installed ones (the only
 * built-in command that does); `remove` deletes the entry and leaves the plugin's AWS resources
 * alone (its own `destroy` removes those).
 *
 * @module
 */
import { parseJsonc } from "@org/shared";
import type { Command, CommandContext } from "../command.ts";
import { suggest } from "../config/suggest.ts";
import cliPackage from "../deno.json" with { type: "json" };
import { DeployError } from "../errors.ts";
import { FIRST_PARTY_PLUGINS } from "../plugin/commands.ts";
import { siteDenoJson } from "../plugin/site_deno_json.ts";
import { installedPlugins, pluginImport, withImport } from "../plugin/site_imports.ts";

/** The site's Deno configuration, read and parsed. */
async function readSite(ctx: CommandContext) {
  const file = await siteDenoJson(ctx.repoDir, ctx.files);
  const text = file.text ?? "{}\n";
  return { ...file, text, parsed: parseJsonc(text, file.path) };
}

function knownPlugin(name: string): string {
  const names = FIRST_PARTY_PLUGINS.map((p) => p.name);
  if (names.includes(name)) return name;
  const guess = suggest(name, names);
  throw new DeployError("plugin_unknown", `there is no deploy plugin named "${name}"`, {
    hint: guess
      ? `did you mean \`deploy plugin add ${guess}\`?`
      : `the plugins: ${names.join(", ")}`,
  });
}

/** `deploy plugin add <name>`. */
export const pluginAddCommand: Command = {
  name: "plugin add",
  summary: "install a plugin in this site (an import in its deno.json)",
  args: ["name"],
  takesEnv: false,
  help: "Adds @org/deploy-<name> to the site's deno.json imports, pinned to this CLI's version,\n" +
    "as `deno add` would. The plugin's commands are then `deploy <name> …`. Nothing else is\n" +
    "written and nothing is created in AWS.",
  async run(ctx) {
    const name = knownPlugin(ctx.args.name ?? "");
    const site = await readSite(ctx);
    const [key, specifier] = pluginImport(name, cliPackage.version);
    const current = installedPlugins(site.parsed).find((p) => p.name === name);
    if (current?.specifier === specifier) {
      ctx.out.line(`${key} is already installed (${specifier}) in ${site.path}.`);
      return 0;
    }
    await ctx.files.writeTextFile(site.path, withImport(site.text, site.parsed, key, specifier));
    if (ctx.out.mode === "json") {
      ctx.out.data({ added: { name, key, specifier }, file: site.path });
      return 0;
    }
    ctx.out.line(`Added ${key}: "${specifier}" to ${site.path}.`);
    ctx.out.line(`Its commands: \`deploy ${name} --help\`.`);
    return 0;
  },
};

/** `deploy plugin remove <name>`. */
export const pluginRemoveCommand: Command = {
  name: "plugin remove",
  summary: "uninstall a plugin (its AWS resources stay: run its destroy first)",
  args: ["name"],
  takesEnv: false,
  help: "Removes @org/deploy-<name> from the site's deno.json imports. The plugin's AWS\n" +
    "resources and state are not touched: run `deploy <name> destroy --yes` first to remove them.",
  async run(ctx) {
    const name = ctx.args.name ?? "";
    const site = await readSite(ctx);
    const current = installedPlugins(site.parsed).find((p) => p.name === name);
    if (!current) {
      throw new DeployError("plugin_unknown", `the ${name} plugin is not installed in this site`, {
        hint: "`deploy plugin list` shows the installed plugins",
      });
    }
    await ctx.files.writeTextFile(
      site.path,
      withImport(site.text, site.parsed, current.key, undefined),
    );
    if (ctx.out.mode === "json") {
      ctx.out.data({ removed: current, file: site.path });
      return 0;
    }
    ctx.out.line(`Removed ${current.key} from ${site.path}.`);
    ctx.out.line(
      `Its AWS resources, if any, are untouched: \`deploy plugin add ${name}\` and ` +
        `\`deploy ${name} destroy --yes\` remove them.`,
    );
    return 0;
  },
};

/** `deploy plugin list`. */
export const pluginListCommand: Command = {
  name: "plugin list",
  summary: "show the installed plugins and their commands",
  takesEnv: false,
  help: "Loads every plugin the site's deno.json installs and shows its namespace, version\n" +
    "specifier and commands; a plugin that cannot load is shown with the reason.",
  async run(ctx) {
    const plugins = await ctx.plugins();
    if (ctx.out.mode === "json") {
      ctx.out.data({
        plugins: plugins.map((p) =>
          "plugin" in p
            ? {
              ...p.installed,
              summary: p.plugin.summary,
              commands: p.plugin.commands.map((c) => `${p.plugin.namespace} ${c.name}`),
            }
            : { ...p.installed, error: p.error.toJSON() }
        ),
      });
      return 0;
    }
    if (plugins.length === 0) {
      ctx.out.line(
        `No plugins installed. Available: ${
          FIRST_PARTY_PLUGINS.map((p) => p.name).join(", ")
        } (\`deploy plugin add <name>\`).`,
      );
      return 0;
    }
    for (const p of plugins) {
      if ("plugin" in p) {
        ctx.out.line(`${p.installed.name}  ${p.installed.specifier}  ${p.plugin.summary}`);
        for (const c of p.plugin.commands) {
          ctx.out.line(`  deploy ${p.plugin.namespace} ${c.name.padEnd(10)} ${c.summary}`);
        }
      } else {
        ctx.out.line(
          `${p.installed.name}  ${p.installed.specifier}  cannot load: ${p.error.message}`,
        );
      }
    }
    return 0;
  },
};
