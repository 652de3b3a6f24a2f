/**
 * `deno task schema` (with the JSON Schema): writes `deploy/config/first_party_sections.json`,
 * the configuration sections of the plugins released with the CLI, taken from each plugin's
 * schema-only module. The core reads that file, so `deploy config` and the JSON Schema cover
 * a first-party plugin without the core importing the plugin (a package that depends on the
 * core). A test fails when the committed file differs: run the task after changing a
 * plugin's section.
 *
 * @module
 */
import { ANALYTICS_SECTION } from "../analytics/section.ts";
import type { PluginSection } from "../deploy/plugin/section.ts";

/** The first-party plugins' sections, in the order help lists them. */
export const FIRST_PARTY: readonly PluginSection[] = [ANALYTICS_SECTION];

/** Where the core reads them, from the repository root. */
export const SECTIONS_FILE = "deploy/config/first_party_sections.json";

/**
 * The file's text (before `deno fmt`).
 *
 * @returns the JSON text
 */
export function firstPartySectionsText(): string {
  return JSON.stringify(FIRST_PARTY, null, 2) + "\n";
}

if (import.meta.main) {
  await Deno.writeTextFile(
    new URL(`../${SECTIONS_FILE}`, import.meta.url),
    firstPartySectionsText(),
  );
}
