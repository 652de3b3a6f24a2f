import { ConfigError, parseToml } from "@org/shared";
import { resolveConfig } from "./resolve.ts";
import type { Config } from "./schema.ts";

/** The config file used when `--config` is not given and it exists in the working directory. */
export const DEFAULT_CONFIG_FILE = "token-exchange.toml";

/** File access for {@linkcode loadConfig}, injected so it can be tested without a disk. */
export interface ConfigFiles {
  /** The file's text, or `undefined` when it does not exist. */
  readText(path: string): Promise<string | undefined>;
}

/** Options of {@linkcode loadConfig}. */
export interface LoadOptions {
  /**
   * Top-level sections a command does not use, left out before resolving: `operator-token` only
   * signs, so it must not need every provider's `${SECRET}` set in its shell.
   */
  readonly skipSections?: readonly string[];
}

/**
 * Loads the service config: `path` when given (it must exist), else
 * {@linkcode DEFAULT_CONFIG_FILE} when present, else built-in defaults; then resolves it.
 *
 * @param path the `--config` argument
 * @param env environment variables (placeholders and `TOKEN_EXCHANGE__*` overrides)
 * @param files file access
 * @param options sections to leave out
 * @returns the config and the file it came from (`undefined` for built-in defaults)
 * @throws {ConfigError} listing every issue
 */
export async function loadConfig(
  path: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  files: ConfigFiles,
  options: LoadOptions = {},
): Promise<{ config: Config; file: string | undefined }> {
  const file = path ?? DEFAULT_CONFIG_FILE;
  const text = await files.readText(file);
  if (text === undefined && path !== undefined) {
    throw new ConfigError([{ path: "", message: `config file ${path} does not exist` }]);
  }
  const parsed = text === undefined ? {} : parseToml(text, file);
  const skip = options.skipSections ?? [];
  const raw = Object.fromEntries(Object.entries(parsed).filter(([k]) => !skip.includes(k)));
  const overrides = skip.map((s) => `TOKEN_EXCHANGE__${s.toUpperCase()}__`);
  const kept = Object.fromEntries(
    Object.entries(env).filter(([k]) => !overrides.some((o) => k.startsWith(o))),
  );
  const result = resolveConfig(raw, kept);
  if ("errors" in result) {
    throw new ConfigError(result.errors, text === undefined ? undefined : file);
  }
  return { config: result.config, file: text === undefined ? undefined : file };
}
