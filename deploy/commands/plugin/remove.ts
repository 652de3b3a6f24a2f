/**
 * `deploy plugin remove <name>`: the plugin's import removed; its AWS resources stay.
 *
 * @module
 */
import type { CommandContext } from "../../command.ts";
import { DeployError } from "../../errors.ts";
import { editableSiteDenoJson } from "../../plugin/site_deno_json.ts";
import { installedPlugins, withImport } from "../../plugin/site_imports.ts";

/**
 * Runs `deploy plugin remove`.
 *
 * @param ctx the command context
 * @returns the exit code
 */
export async function pluginRemove(ctx: CommandContext): Promise<number> {
  const name = ctx.args.name ?? "";
  const site = await editableSiteDenoJson(ctx.repoDir, ctx.files);
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
}
