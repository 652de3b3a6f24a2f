/**
 * `deploy config [env]`: prints the fully resolved configuration (defaults filled, derived
 * names included) as JSON.
 *
 * @module
 */
import type { ConfigIssue } from "@org/shared";
import type { Command } from "../command.ts";
import {
  FIRST_PARTY_SECTIONS,
  resolvePluginSection,
  sectionDefaults,
  sectionNames,
} from "../config/plugin_section.ts";
import type { LoadedSite } from "../config/load.ts";
import { resolvePdsConfig } from "../config/pds_config.ts";
import { openSite } from "../site/open_site.ts";

/**
 * The JSON `deploy config` prints: the resolved keys at the top level, then where they came
 * from (`env`, `configFile`, `repoDir`, `accountId`) and every derived name under `names`.
 *
 * `pds` and the first-party plugins' sections (`analytics`) are checked here too, but never
 * fail the command (only their own commands refuse a broken section): a valid section is
 * printed resolved, defaults filled, and its names (`names.pdsSecretName`, `names.analytics`)
 * are the ones the user set; an invalid one is printed as written, its problems listed under
 * `issues`. A plugin's section comes from its data ({@linkcode FIRST_PARTY_SECTIONS}), never
 * from loading the plugin.
 *
 * @param site the loaded site
 * @returns a JSON-ready object
 */
export function configReport(site: LoadedSite): Record<string, unknown> {
  const { pds: rawPds, ...rest } = site.config;
  const config: Record<string, unknown> = { ...rest };
  for (const s of FIRST_PARTY_SECTIONS) delete config[s.configKey];
  const issues: ConfigIssue[] = [];
  const { tags, ...coreNames } = site.names;
  const names: Record<string, unknown> = { ...coreNames };
  const sections: Record<string, unknown> = {};

  const pds = resolvePdsConfig(rawPds, site.config);
  if ("errors" in pds) {
    sections.pds = rawPds;
    issues.push(...pds.errors);
  } else if (pds.config !== null) {
    sections.pds = pds.config;
    names.pdsSecretName = pds.config.secretName;
  }

  const where = { siteName: site.config.siteName, env: site.env };
  const pluginNames: Record<string, unknown> = {};
  for (const section of FIRST_PARTY_SECTIONS) {
    const raw = site.config[section.configKey];
    const resolved = resolvePluginSection(section, raw, where);
    let named;
    if ("errors" in resolved) {
      sections[section.configKey] = raw;
      issues.push(...resolved.errors);
      named = sectionNames(section, sectionDefaults(section, where));
    } else {
      if (raw !== undefined) sections[section.configKey] = resolved.config;
      named = sectionNames(section, resolved.config);
    }
    if (named !== undefined) pluginNames[section.configKey] = named;
  }
  return {
    env: site.env,
    configFile: site.file,
    repoDir: site.repoDir,
    accountId: site.accountId,
    ...config,
    ...sections,
    names: { ...names, ...pluginNames, tags },
    ...(issues.length > 0 ? { issues } : {}),
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
    "printed resolved when valid; when not, as written with their problems under `issues`\n" +
    "(a warning, exit code 0: only their own commands refuse them).",
  async run(ctx) {
    const report = configReport((await openSite(ctx)).site);
    const issues = (report.issues ?? []) as ConfigIssue[];
    for (const issue of issues) {
      ctx.out.warn(
        `${issue.path}: ${issue.message} (the ${issue.path.split(".")[0]} commands will refuse it)`,
      );
    }
    ctx.out.data(report);
  },
};
