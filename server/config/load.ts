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

/**
 * Loads the service config: `path` when given (it must exist), else
 * {@linkcode DEFAULT_CONFIG_FILE} when present, else built-in defaults; then resolves it.
 *
 * @param path the `--config` argument
 * @param env environment variables (placeholders and `TOKEN_EXCHANGE__*` overrides)
 * @param files file access
 * @returns the config and the file it came from (`undefined` for built-in defaults)
 * @throws {ConfigError} listing every issue
 */
export async function loadConfig(
  path: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  files: ConfigFiles,
): Promise<{ config: Config; file: string | undefined }> {
  const file = path ?? DEFAULT_CONFIG_FILE;
  const text = await files.readText(file);
  if (text === undefined && path !== undefined) {
    throw new ConfigError([{ path: "", message: `config file ${path} does not exist` }]);
  }
  const raw = text === undefined ? {} : parseToml(text, file);
  const result = resolveConfig(raw, env);
  if ("errors" in result) {
    throw new ConfigError(result.errors, text === undefined ? undefined : file);
  }
  return { config: result.config, file: text === undefined ? undefined : file };
}
