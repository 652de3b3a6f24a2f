/**
 * `deploy plugin list`: the installed plugins, loaded, with their commands.
 *
 * @module
 */
import type { CommandContext } from "../../command.ts";
import { FIRST_PARTY_PLUGINS } from "../../plugin/commands.ts";

/**
 * Runs `deploy plugin list`.
 *
 * @param ctx the command context
 * @returns the exit code
 */
export async function pluginList(ctx: CommandContext): Promise<number> {
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
}
