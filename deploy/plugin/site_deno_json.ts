/**
 * Reading the site's `deno.json` (or `deno.jsonc`), where installed plugins are recorded: the
 * thin I/O around the pure decisions of `site_imports.ts`.
 *
 * @module
 */
import { join } from "node:path";
import { parseJsonc } from "@org/shared";
import type { Files } from "../config/files.ts";

/** The site's Deno configuration file: where it is, and its text when it exists. */
export interface SiteDenoJson {
  /** `<repo>/deno.json`, or `<repo>/deno.jsonc` when only that exists. */
  readonly path: string;
  /** The text; null when neither file exists. */
  readonly text: string | null;
}

/**
 * Finds and reads the site's `deno.json` (else `deno.jsonc`).
 *
 * @param repoDir the site repository's root
 * @param files file access
 * @returns its path (`deno.json` when neither exists) and text
 */
export async function siteDenoJson(repoDir: string, files: Files): Promise<SiteDenoJson> {
  for (const name of ["deno.json", "deno.jsonc"]) {
    const path = join(repoDir, name);
    if (await files.exists(path)) return { path, text: await files.readTextFile(path) };
  }
  return { path: join(repoDir, "deno.json"), text: null };
}

/**
 * The site's `deno.json` to edit: as {@linkcode siteDenoJson}, with `{}` standing in for a
 * missing file, and parsed.
 *
 * @param repoDir the site repository's root
 * @param files file access
 * @returns its path, text and parsed value
 * @throws {ConfigError} naming the file, line and column when it does not parse
 */
export async function editableSiteDenoJson(
  repoDir: string,
  files: Files,
): Promise<{ path: string; text: string; parsed: unknown }> {
  const file = await siteDenoJson(repoDir, files);
  const text = file.text ?? "{}\n";
  return { ...file, text, parsed: parseJsonc(text, file.path) };
}
