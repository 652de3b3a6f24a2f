import { type Node, type ParseError, parseTree, printParseErrorCode } from "jsonc-parser";
import { ConfigError } from "./issue.ts";

/**
 * Parses JSONC text: `//` and `/* *\/` comments and trailing commas are accepted, and a
 * leading UTF-8 byte-order mark (which Windows editors write) is ignored. Every key becomes an
 * own property, `"__proto__"` included, so a validator that lists `Object.keys` sees (and can
 * reject) it instead of the key silently replacing the object's prototype.
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
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
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
  return tree === undefined ? undefined : valueOf(tree);
}

/**
 * The value of a parse-tree node. Properties are defined rather than assigned: assigning
 * `obj["__proto__"] = {…}` (what jsonc-parser's `parse` does) sets the prototype instead.
 */
function valueOf(node: Node): unknown {
  switch (node.type) {
    case "object": {
      const obj: Record<string, unknown> = {};
      for (const property of node.children ?? []) {
        const [key, value] = property.children ?? [];
        if (key === undefined) continue;
        Object.defineProperty(obj, String(key.value), {
          value: value === undefined ? undefined : valueOf(value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return obj;
    }
    case "array":
      return (node.children ?? []).map(valueOf);
    default:
      return node.value;
  }
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
