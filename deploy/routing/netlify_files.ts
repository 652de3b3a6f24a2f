/**
 * Netlify's `_redirects` and `_headers` files, read from the root of the build output against
 * Netlify's documented grammar (docs.netlify.com, "Redirects and rewrites" and "Custom
 * headers"): `#` comments and blank lines; a redirect line is `from to [status[!]]`; a header
 * block is a path line followed by indented `Name: value` lines.
 *
 * Features this CDN cannot honour are refused with the file and line rather than dropped:
 * query-parameter matching, `Country`/`Language`/`Role`/`Cookie` conditions, host-level
 * `from` URLs, and proxying (status 200 to an absolute URL). So is hostile input: a file over
 * {@linkcode MAX_RULE_FILE_BYTES}, a line over {@linkcode MAX_LINE_CHARS}, more than
 * `MAX_RULES` rules, or a control character. npm `netlify-redirect-parser` runs under Deno
 * but reports no line numbers, sets no limits and accepts conditions and proxies silently, so
 * the grammar is parsed here.
 *
 * @module
 */
import type { ConfigIssue } from "@org/shared";
import { DeployError } from "../errors.ts";
import { type HeaderRule, MAX_RULES, type RedirectRule } from "../config/route_rules.ts";

/** The redirects file's name at the root of the build output. */
export const REDIRECTS_FILE = "_redirects";
/** The headers file's name at the root of the build output. */
export const HEADERS_FILE = "_headers";

/** The largest rules file read, in bytes (2,000 rules of 256 characters fit twice over). */
export const MAX_RULE_FILE_BYTES = 1024 * 1024;

/** The longest line accepted, in characters. */
export const MAX_LINE_CHARS = 4096;

/** Control characters other than tab (CR and LF end lines). */
// deno-lint-ignore no-control-regex -- finding control characters is this pattern's purpose
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/** Netlify's conditions, none of which a static CloudFront function can evaluate. */
const CONDITION = /^(country|language|role|cookie)=/i;

/** One line of a rules file, numbered from 1. */
interface Line {
  readonly n: number;
  readonly text: string;
}

/** A redirect rule as a file wrote it, with its line for error messages. */
export interface FileRedirect {
  readonly line: number;
  readonly rule: { from: string; to: string; status: number; force: boolean };
}

/** A header rule as a file wrote it, with its line. */
export interface FileHeaders {
  readonly line: number;
  readonly rule: HeaderRule;
}

/**
 * Splits a rules file into its meaningful lines, refusing hostile input.
 *
 * @param text the file's text
 * @param file its name, for messages
 * @returns non-blank, non-comment lines (indentation kept)
 * @throws DeployError `rules_invalid` naming the file and line
 */
function meaningfulLines(text: string, file: string): Line[] {
  if (text.length > MAX_RULE_FILE_BYTES) {
    throw tooLarge(file, `over ${MAX_RULE_FILE_BYTES} bytes`);
  }
  const out: Line[] = [];
  text.replace(/^\uFEFF/, "").split(/\r?\n/).forEach((text, i) => {
    const n = i + 1;
    if (text.length > MAX_LINE_CHARS) {
      throw invalid(file, n, `is over ${MAX_LINE_CHARS} characters`);
    }
    if (CONTROL.test(text)) throw invalid(file, n, "has a control character");
    const trimmed = text.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    out.push({ n, text });
  });
  return out;
}

/**
 * Parses a `_redirects` file.
 *
 * @param text the file's text
 * @returns its rules in order, each with its line
 * @throws DeployError `rules_invalid` naming the file and line of the first problem
 *
 * @example
 * ```ts
 * parseRedirectsFile("/blog/* /posts/:splat 302!\n");
 * // [{ line: 1, rule: { from: "/blog/*", to: "/posts/:splat", status: 302, force: true } }]
 * ```
 */
export function parseRedirectsFile(text: string): FileRedirect[] {
  const file = REDIRECTS_FILE;
  const lines = meaningfulLines(text, file);
  if (lines.length > MAX_RULES) throw tooLarge(file, `${lines.length} rules, over ${MAX_RULES}`);
  return lines.map(({ n, text }) => {
    // A trailing comment is allowed after the fields.
    const tokens = text.replace(/\s+#.*$/, "").trim().split(/\s+/);
    const from = tokens[0]!;
    if (/^https?:\/\//i.test(from) || from.startsWith("//")) {
      throw invalid(file, n, "matches a host name; only paths of this site can be redirected");
    }
    const toAt = tokens.findIndex((t, i) =>
      i > 0 && (t.startsWith("/") || /^https?:\/\//i.test(t))
    );
    if (toAt === -1) throw invalid(file, n, "has no target path or URL");
    if (toAt > 1) {
      throw invalid(file, n, `matches query parameters (${tokens[1]}), which is not supported`);
    }
    const to = tokens[toAt]!;
    let status = 301;
    let force = false;
    let rest = tokens.slice(toAt + 1);
    const code = rest[0]?.match(/^(\d{3})(!?)$/);
    if (code) {
      status = Number(code[1]);
      force = code[2] === "!";
      rest = rest.slice(1);
    }
    const condition = rest.find((t) => CONDITION.test(t));
    if (condition) {
      throw invalid(
        file,
        n,
        `has the condition ${condition}; country, language, role and cookie conditions are ` +
          "not supported",
      );
    }
    if (rest.length > 0) throw invalid(file, n, `has unexpected text "${rest.join(" ")}"`);
    return { line: n, rule: { from, to, status, force } };
  });
}

/**
 * Parses a `_headers` file: each path line opens a block; the indented `Name: value` lines
 * under it are its headers (a name given twice is joined with `, `, as Netlify does).
 *
 * @param text the file's text
 * @returns its rules in order, each with its path line
 * @throws DeployError `rules_invalid` naming the file and line of the first problem
 */
export function parseHeadersFile(text: string): FileHeaders[] {
  const file = HEADERS_FILE;
  const out: FileHeaders[] = [];
  for (const { n, text: line } of meaningfulLines(text, file)) {
    if (!/^\s/.test(line)) {
      if (out.length >= MAX_RULES) throw tooLarge(file, `over ${MAX_RULES} rules`);
      out.push({ line: n, rule: { for: line.trim(), values: {} } });
      continue;
    }
    const current = out.at(-1);
    if (!current) throw invalid(file, n, "is a header line before any path line");
    const colon = line.indexOf(":");
    if (colon === -1) throw invalid(file, n, "is not a Name: value header line");
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    const values = current.rule.values;
    const same = Object.keys(values).find((k) => k.toLowerCase() === name.toLowerCase());
    if (same === undefined) values[name] = value;
    else values[same] = `${values[same]}, ${value}`;
  }
  return out;
}

/**
 * The config's rules followed by the files' rules, as one list each.
 *
 * @param config the config's `redirects` and `headers`
 * @param files the parsed files
 * @returns the rules in the order they apply
 */
export function mergeRules(
  config: { redirects: readonly RedirectRule[]; headers: readonly HeaderRule[] },
  files: { redirects: readonly FileRedirect[]; headers: readonly FileHeaders[] },
): { redirects: RedirectRule[]; headers: HeaderRule[] } {
  return {
    redirects: [...config.redirects, ...files.redirects.map((r) => r.rule as RedirectRule)],
    headers: [...config.headers, ...files.headers.map((h) => h.rule)],
  };
}

/**
 * The error for a rules file that breaks the grammar or asks for an unsupported feature.
 *
 * @param file the file's name
 * @param line the line, from 1
 * @param why what is wrong, phrased after "line N"
 * @returns a `rules_invalid` error
 */
function invalid(file: string, line: number, why: string): DeployError {
  return new DeployError("rules_invalid", `${file} line ${line} ${why}`, {
    hint: `fix the line in ${file} (docs/redirects.md lists what is supported); nothing was ` +
      "uploaded",
  });
}

function tooLarge(file: string, why: string): DeployError {
  return new DeployError("rules_invalid", `${file} is too large: ${why}`, {
    hint: `move rules to fewer patterns with * and :placeholders; nothing was uploaded`,
  });
}

/**
 * The error listing every rule of the files that breaks a field rule.
 *
 * @param issues the problems, each `path` a `file:line`
 * @returns a `rules_invalid` error carrying them
 */
export function rulesInvalid(issues: ConfigIssue[]): DeployError {
  return new DeployError(
    "rules_invalid",
    `${issues.length} problem${issues.length === 1 ? "" : "s"} in _redirects or _headers`,
    { hint: "fix the lines listed (docs/redirects.md); nothing was uploaded", issues },
  );
}
