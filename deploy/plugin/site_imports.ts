/**
 * Which plugins a site has installed, read from and written to its `deno.json` `imports` the
 * way `deno add` writes a dependency (pure). A plugin `<name>` is the package
 * `@org/deploy-<name>`, released with the CLI, so `plugin add` pins the CLI's own version.
 *
 * @module
 */
import { setJsoncValue } from "@org/shared";

/** The package scope and prefix plugins are published under. */
export const PLUGIN_PACKAGE_PREFIX = "@org/deploy-";

/** A plugin name: what follows `deploy plugin add`. */
export const PLUGIN_NAME = /^[a-z][a-z0-9-]*$/;

/**
 * The import map entry for a plugin (pure).
 *
 * @param name the plugin name (`analytics`)
 * @param version the CLI's version, which the plugin is released with
 * @returns the key and the specifier `deno add` would write
 *
 * @example
 * ```ts
 * pluginImport("analytics", "0.1.0"); // ["@org/deploy-analytics", "jsr:@org/deploy-analytics@^0.1.0"]
 * ```
 */
export function pluginImport(name: string, version: string): [string, string] {
  const pkg = `${PLUGIN_PACKAGE_PREFIX}${name}`;
  return [pkg, `jsr:${pkg}@^${version}`];
}

/** An installed plugin, as the site's `deno.json` names it. */
export interface InstalledPlugin {
  /** The plugin name (`analytics`). */
  readonly name: string;
  /** The import key (`@org/deploy-analytics`): what the CLI imports. */
  readonly key: string;
  /** What the key maps to (`jsr:@org/deploy-analytics@^0.1.0`). */
  readonly specifier: string;
}

/**
 * The plugins a parsed `deno.json` installs (pure): every `imports` key
 * `@org/deploy-<name>`, sorted by name.
 *
 * @param denoJson the parsed `deno.json` (anything: a file without `imports` installs none)
 * @returns the installed plugins
 */
export function installedPlugins(denoJson: unknown): InstalledPlugin[] {
  const imports = (denoJson as { imports?: unknown } | null)?.imports;
  if (typeof imports !== "object" || imports === null) return [];
  return Object.entries(imports as Record<string, unknown>)
    .filter(([key, value]) =>
      key.startsWith(PLUGIN_PACKAGE_PREFIX) && typeof value === "string" &&
      PLUGIN_NAME.test(key.slice(PLUGIN_PACKAGE_PREFIX.length))
    )
    .map(([key, value]) => ({
      name: key.slice(PLUGIN_PACKAGE_PREFIX.length),
      key,
      specifier: value as string,
    }))
    .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/**
 * `deno.json` with one import set or removed, the imports kept in key order as `deno add`
 * keeps them; comments and the rest of the file untouched (pure).
 *
 * @param text the file's text (`{}` for a new file)
 * @param denoJson the same, parsed
 * @param key the import key
 * @param specifier the new value, or undefined to remove it
 * @returns the new text
 */
export function withImport(
  text: string,
  denoJson: unknown,
  key: string,
  specifier: string | undefined,
): string {
  const current = (denoJson as { imports?: Record<string, string> } | null)?.imports ?? {};
  const next: Record<string, string> = {};
  const keys = new Set(Object.keys(current));
  if (specifier === undefined) keys.delete(key);
  else keys.add(key);
  for (const k of [...keys].sort()) next[k] = k === key ? specifier! : current[k]!;
  const out = setJsoncValue(text, ["imports"], next);
  return out.endsWith("\n") ? out : out + "\n";
}
