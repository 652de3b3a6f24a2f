/**
 * `deploy config [env]`: prints the fully resolved configuration (defaults filled, derived
 * names included) as JSON.
 *
 * @module
 */
import type { ConfigIssue } from "@org/shared";
import type { Command } from "../cli/command.ts";
import { resolveAnalyticsConfig } from "../config/analytics_config.ts";
import type { LoadedSite } from "../config/load.ts";
import { resolvePdsConfig } from "../config/pds_config.ts";
import { openSite } from "../site/open_site.ts";

/**
 * The JSON `deploy config` prints: the resolved keys at the top level, then where they came
 * from (`env`, `configFile`, `repoDir`, `accountId`) and every derived name under `names`.
 *
 * `pds` and `analytics` are checked here too, but never fail the command (only their own
 * commands refuse a broken section): a valid section is printed resolved, defaults filled, and
 * its names (`names.pdsSecretName`, `names.analytics`) are the ones the user set; an invalid
 * one is printed as written, its problems listed under `issues`.
 *
 * @param site the loaded site
 * @returns a JSON-ready object
 */
export function configReport(site: LoadedSite): Record<string, unknown> {
  const { pds: rawPds, analytics: rawAnalytics, ...config } = site.config;
  const issues: ConfigIssue[] = [];
  let names = site.names;
  const sections: Record<string, unknown> = {};

  const pds = resolvePdsConfig(rawPds, config);
  if ("errors" in pds) {
    sections.pds = rawPds;
    issues.push(...pds.errors);
  } else if (pds.config !== null) {
    sections.pds = pds.config;
    names = { ...names, pdsSecretName: pds.config.secretName };
  }

  const analytics = resolveAnalyticsConfig(rawAnalytics, {
    siteName: config.siteName,
    env: site.env,
  });
  if ("errors" in analytics) {
    sections.analytics = rawAnalytics;
    issues.push(...analytics.errors);
  } else {
    const a = analytics.config;
    if (rawAnalytics !== undefined) sections.analytics = a;
    names = {
      ...names,
      analytics: {
        tableBucket: a.tableBucket,
        namespace: a.namespace,
        table: a.table,
        bots: a.bots,
        saltSecretName: a.saltSecretName,
        dashboardPort: a.dashboard.port,
      },
    };
  }
  return {
    env: site.env,
    configFile: site.file,
    repoDir: site.repoDir,
    accountId: site.accountId,
    ...config,
    ...sections,
    names,
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
