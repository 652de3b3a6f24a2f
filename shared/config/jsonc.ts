import { parse, type ParseError, printParseErrorCode } from "jsonc-parser";
import { ConfigError } from "./issue.ts";

/**
 * Parses JSONC text: `//` and `/* *\/` comments and trailing commas are accepted.
 *
 * @param text the file contents
 * @param file the file name, used in error messages
 * @returns the parsed value
 * @throws {ConfigError} naming the file, line and column of every syntax error
 *
 * @example
 * ```ts
 * parseJsonc('{ "siteName": "blog", // comment\n }', "ops.config.jsonc");
 * ```
 */
export function parseJsonc(text: string, file: string): unknown {
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    throw new ConfigError(
      errors.map((e) => {
        const { line, column } = lineColumn(text, e.offset);
        return {
          path: "",
          message: `${file}:${line}:${column}: ${describe(printParseErrorCode(e.error))}`,
        };
      }),
      file,
    );
  }
  return value;
}

/** One-based line and column of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

function describe(code: string): string {
  // "CommaExpected" → "comma expected"
  return code.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}
