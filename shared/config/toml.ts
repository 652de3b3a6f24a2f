import { parse, TomlError } from "smol-toml";
import { ConfigError } from "./issue.ts";

/**
 * Parses TOML text into a plain object.
 *
 * @param text the file contents
 * @param file the file name, used in error messages
 * @returns the parsed table
 * @throws {ConfigError} naming the file, line and column of the syntax error
 *
 * @example
 * ```ts
 * parseToml('[server]\nport = 8080\n', "token-exchange.toml"); // { server: { port: 8080 } }
 * ```
 */
export function parseToml(text: string, file: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof TomlError) {
      const first = err.message.split("\n")[0] ?? "syntax error";
      const reason = first.replace(/^Invalid TOML document: /, "");
      throw new ConfigError(
        [{ path: "", message: `${file}:${err.line}:${err.column}: ${reason}` }],
        file,
      );
    }
    throw err;
  }
}
