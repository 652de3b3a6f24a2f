/**
 * `deploy config [env]`: prints the fully resolved configuration (defaults filled, derived
 * names included) as JSON.
 *
 * @module
 */
import type { Command } from "../cli/command.ts";
import type { LoadedSite } from "../config/load.ts";

/**
 * The JSON `deploy config` prints: the resolved keys at the top level, then where they came
 * from (`env`, `configFile`, `repoDir`, `accountId`) and every derived name under `names`.
 *
 * @param site the loaded site
 * @returns a JSON-ready object
 */
export function configReport(site: LoadedSite): Record<string, unknown> {
  return {
    env: site.env,
    configFile: site.file,
    repoDir: site.repoDir,
    accountId: site.accountId,
    ...site.config,
    names: site.names,
  };
}

/** The `config` command. */
export const configCommand: Command = {
  name: "config",
  summary: "print the resolved configuration (defaults and derived names) as JSON",
  help:
    "Loads config/<env>.jsonc (or ops.config.jsonc, or --config PATH), validates it and prints\n" +
    "it as JSON with every default filled and every derived resource name. Every problem is\n" +
    "listed at once; exit code 1 when there is any. The `pds` and `analytics` sections are\n" +
    "printed as written (they are checked by their own commands).",
  async run(ctx) {
    ctx.out.data(configReport(await ctx.site()));
  },
};
