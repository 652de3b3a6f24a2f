import {
  createScanner,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";

// jsonc-parser's `SyntaxKind` is a const enum, which isolated modules cannot read: its values.
const OPEN_BRACE = 1;
const CLOSE_BRACE = 2;
const OPEN_BRACKET = 3;
const CLOSE_BRACKET = 4;
const EOF = 17;
import { ConfigError } from "./issue.ts";

/** Bounds on what {@linkcode parseJsonc} accepts from a file it cannot trust. */
export interface JsoncLimits {
  /** Deepest nesting of objects and arrays accepted. Default {@linkcode MAX_JSONC_DEPTH}. */
  readonly maxDepth?: number;
  /** Syntax errors reported with their positions; the rest are counted. Default 20. */
  readonly maxErrors?: number;
}

/** Nesting past this is refused: no configuration needs it, and parsing it recurses. */
export const MAX_JSONC_DEPTH = 64;

/** Syntax errors listed before the rest are only counted: a screenful. */
export const MAX_JSONC_ERRORS = 20;

/**
 * Parses JSONC text: `//` and `/* *\/` comments and trailing commas are accepted, and a
 * leading UTF-8 byte-order mark (which Windows editors write) is ignored. Every key becomes an
 * own property, `"__proto__"` included, so a validator that lists `Object.keys` sees (and can
 * reject) it instead of the key silently replacing the object's prototype.
 *
 * Hostile input stays cheap: nesting deeper than `maxDepth` is refused by a flat scan before
 * the (recursive) parse, and at most `maxErrors` syntax errors are reported, their lines and
 * columns computed in one pass over the text, with a last issue counting the rest.
 *
 * @param text the file contents
 * @param file the file name, used in error messages
 * @param limits nesting and error-count bounds
 * @returns the parsed value
 * @throws {ConfigError} naming the file, line and column of each syntax error reported
 *
 * @example
 * ```ts
 * parseJsonc('{ "siteName": "blog", // comment\n }', "ops.config.jsonc");
 * ```
 */
export function parseJsonc(text: string, file: string, limits: JsoncLimits = {}): unknown {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const maxDepth = limits.maxDepth ?? MAX_JSONC_DEPTH;
  const tooDeep = firstTooDeep(text, maxDepth);
  if (tooDeep !== undefined) {
    const [at] = positions(text, [tooDeep]);
    throw new ConfigError([{
      path: "",
      message: `${file}:${at!.line}:${at!.column}: nested deeper than ${maxDepth} levels`,
    }], file);
  }
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const shown = errors.slice(0, limits.maxErrors ?? MAX_JSONC_ERRORS);
    const at = positions(text, shown.map((e) => e.offset));
    const issues = shown.map((e, i) => ({
      path: "",
      message: `${file}:${at[i]!.line}:${at[i]!.column}: ${describe(printParseErrorCode(e.error))}`,
    }));
    if (errors.length > shown.length) {
      issues.push({ path: "", message: `… and ${errors.length - shown.length} more` });
    }
    throw new ConfigError(issues, file);
  }
  return tree === undefined ? undefined : valueOf(tree);
}

/** The offset of the first `{`/`[` that opens level `maxDepth + 1`, scanning flat (no recursion). */
function firstTooDeep(text: string, maxDepth: number): number | undefined {
  const scanner = createScanner(text, false);
  let depth = 0;
  for (let kind = scanner.scan(); kind !== EOF; kind = scanner.scan()) {
    if (kind === OPEN_BRACE || kind === OPEN_BRACKET) {
      if (++depth > maxDepth) return scanner.getTokenOffset();
    } else if (kind === CLOSE_BRACE || kind === CLOSE_BRACKET) {
      depth = Math.max(0, depth - 1);
    }
  }
  return undefined;
}

/** One-based lines and columns of ascending offsets, in one pass over the text. */
function positions(text: string, offsets: readonly number[]): { line: number; column: number }[] {
  const out: { line: number; column: number }[] = [];
  let line = 1;
  let start = 0;
  let i = 0;
  for (const offset of offsets) {
    for (; i < offset && i < text.length; i++) {
      if (text.charCodeAt(i) === 10) {
        line++;
        start = i + 1;
      }
    }
    out.push({ line, column: offset - start + 1 });
  }
  return out;
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

function describe(code: string): string {
  // "CommaExpected" → "comma expected"
  return code.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}
