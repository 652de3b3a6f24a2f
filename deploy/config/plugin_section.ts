/**
 * The part of a plugin the core reads without running it: its configuration section (key,
 * schema, derived defaults, the names `deploy config` prints) and the error codes it owns. It
 * is plain data, so the core checks any plugin's section with the plugin's own schema, and
 * covers the first-party plugins in `deploy config` and the JSON Schema from a file generated at
 * release time (`first_party_sections.json`) without loading them.
 *
 * @module
 */
import type { ConfigIssue } from "@org/shared";
import { checkField, checkObject } from "./check.ts";
import type { ObjectField } from "./field.ts";
import firstParty from "./first_party_sections.json" with { type: "json" };

/** A plugin's configuration section and error codes, as data. */
export interface PluginSection {
  /** The command group and state scope: `analytics` → `deploy analytics …`, `state/<env>.analytics.json`. */
  readonly namespace: string;
  /** One line for help and `plugin list`. */
  readonly summary: string;
  /** The key of the site configuration the plugin owns (inert while it is not installed). */
  readonly configKey: string;
  /**
   * The section's schema, checked when one of the plugin's commands is dispatched (never
   * otherwise: a broken section fails only the plugin's commands). A string field's
   * `derivedDefault` is a template over `<env>` and `<siteName>` that fills it when absent, and
   * is held to the field's rules like a written value.
   */
  readonly schema: ObjectField;
  /**
   * What `deploy config` prints under `names.<configKey>`: each name and the dotted path of
   * the resolved section it shows (`dashboardPort` → `dashboard.port`).
   */
  readonly names?: Readonly<Record<string, string>>;
  /**
   * The error codes the plugin's commands report, which it owns: the core passes them through
   * as it does its own (`--json` prints `{"error": {"code": …}}`); no two plugins, and no
   * plugin and the core, should share one (a plugin picks its own).
   */
  readonly errorCodes: readonly string[];
}

/**
 * The sections of the plugins released with the CLI, generated from their own modules by
 * `deno task schema` (a test fails when the file is stale): the core knows them without loading
 * the plugins, for the JSON Schema, `deploy config` and `deploy <name> …` before installing.
 */
export const FIRST_PARTY_SECTIONS: readonly PluginSection[] = firstParty as PluginSection[];

/** What a section's derived defaults are made from. */
export interface SectionSite {
  /** The resolved `siteName`. */
  readonly siteName: string;
  /** The environment name. */
  readonly env: string;
}

/**
 * Checks a plugin's section and fills its defaults (pure): every problem at once, with key
 * paths `<configKey>.…`; an absent section or `{}` gives all the defaults.
 *
 * @param section the plugin's section
 * @param raw the section as written (`undefined` when absent)
 * @param site the resolved `siteName` and the environment, for derived defaults
 * @returns the resolved section or every problem found
 *
 * @example
 * ```ts
 * import type { PluginSection } from "./plugin_section.ts";
 *
 * const defaults = (section: PluginSection) =>
 *   resolvePluginSection(section, undefined, { siteName: "blog", env: "production" });
 * // { config: { …every default… } }
 * ```
 */
export function resolvePluginSection(
  section: PluginSection,
  raw: unknown,
  site: SectionSite,
): { config: Record<string, unknown> } | { errors: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const key = section.configKey;
  const resolved = checkObject(section.schema, raw ?? {}, key, issues);
  if (resolved === undefined || issues.length > 0) return { errors: issues };
  for (const [name, template] of derivedDefaults(section)) {
    if (resolved[name] !== undefined) continue;
    // Derived defaults obey the same rules as written values (a long site name can make a
    // default name too long).
    const value = checkField(
      section.schema.fields[name]!,
      fillTemplate(template, site),
      `${key}.${name}`,
      issues,
    );
    if (value !== undefined) resolved[name] = value;
  }
  return issues.length > 0 ? { errors: issues } : { config: resolved };
}

/**
 * The section's defaults, derived ones filled but not checked (pure): what `deploy config`
 * names when the written section is broken.
 *
 * @param section the plugin's section
 * @param site the resolved `siteName` and the environment
 * @returns the defaults
 */
export function sectionDefaults(
  section: PluginSection,
  site: SectionSite,
): Record<string, unknown> {
  const resolved = checkObject(section.schema, {}, section.configKey, []) ?? {};
  for (const [name, template] of derivedDefaults(section)) {
    resolved[name] = fillTemplate(template, site);
  }
  return resolved;
}

/**
 * The names `deploy config` prints for a resolved section (pure), per
 * {@linkcode PluginSection.names}.
 *
 * @param section the plugin's section
 * @param config the resolved section
 * @returns the names, or undefined when the section declares none
 */
export function sectionNames(
  section: PluginSection,
  config: Readonly<Record<string, unknown>>,
): Record<string, unknown> | undefined {
  if (section.names === undefined) return undefined;
  return Object.fromEntries(
    Object.entries(section.names).map(([name, path]) => [
      name,
      path.split(".").reduce<unknown>(
        (v, k) => (v as Record<string, unknown> | undefined)?.[k],
        config,
      ),
    ]),
  );
}

function derivedDefaults(section: PluginSection): [string, string][] {
  return Object.entries(section.schema.fields).flatMap(([name, field]) =>
    field.kind === "string" && field.derivedDefault !== undefined
      ? [[name, field.derivedDefault] as [string, string]]
      : []
  );
}

function fillTemplate(template: string, site: SectionSite): string {
  return template.replaceAll("<env>", site.env).replaceAll("<siteName>", site.siteName);
}
