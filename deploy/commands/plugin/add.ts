/**
 * `deploy plugin add <name>`: the plugin's import written into the site's `deno.json`.
 *
 * @module
 */
import type { CommandContext } from "../../command.ts";
import { suggest } from "../../config/suggest.ts";
import cliPackage from "../../deno.json" with { type: "json" };
import { DeployError } from "../../errors.ts";
import { FIRST_PARTY_PLUGINS } from "../../plugin/commands.ts";
import { editableSiteDenoJson } from "../../plugin/site_deno_json.ts";
import { installedPlugins, pluginImport, withImport } from "../../plugin/site_imports.ts";

/**
 * Runs `deploy plugin add`.
 *
 * @param ctx the command context
 * @returns the exit code
 */
export async function pluginAdd(ctx: CommandContext): Promise<number> {
  const name = knownPlugin(ctx.args.name ?? "");
  const site = await editableSiteDenoJson(ctx.repoDir, ctx.files);
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
