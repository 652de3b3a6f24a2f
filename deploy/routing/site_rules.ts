/**
 * The site's redirect and header rules for one build: the config's, then those of the build
 * output's `_redirects` and `_headers` files, every rule checked as the config's are.
 *
 * @module
 */
import type { ConfigIssue } from "@org/shared";
import { checkField } from "../config/check.ts";
import { HEADER_RULE_FIELD, REDIRECT_RULE_FIELD } from "../config/schema.ts";
import { DeployError } from "../errors.ts";
import {
  type FileHeaders,
  type FileRedirect,
  HEADERS_FILE,
  MAX_RULE_FILE_BYTES,
  mergeRules,
  parseHeadersFile,
  parseRedirectsFile,
  REDIRECTS_FILE,
  rulesInvalid,
} from "./netlify_files.ts";
import {
  headerIssues,
  type HeaderRule,
  redirectIssues,
  type RedirectRule,
} from "../config/route_rules.ts";

/** The rules a build serves with, in the order they apply. */
export interface SiteRules {
  redirects: RedirectRule[];
  headers: HeaderRule[];
}

/**
 * Checks the files' rules with the config's field rules and cross-checks (pure).
 *
 * @param files the parsed files
 * @param ownHosts the site's own host names (lower case), whose URLs are checked as paths
 * @returns one issue per problem, its path `_redirects:<line>.<field>`
 */
export function fileRuleIssues(
  files: { redirects: readonly FileRedirect[]; headers: readonly FileHeaders[] },
  ownHosts: readonly string[] = [],
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const at = (file: string, list: readonly { line: number }[]) => (i: number) =>
    `${file}:${list[i]!.line}`;
  files.redirects.forEach((r, i) =>
    checkField(REDIRECT_RULE_FIELD, r.rule, at(REDIRECTS_FILE, files.redirects)(i), issues)
  );
  files.headers.forEach((h, i) =>
    checkField(HEADER_RULE_FIELD, h.rule, at(HEADERS_FILE, files.headers)(i), issues)
  );
  issues.push(
    ...redirectIssues(
      files.redirects.map((r) => r.rule),
      at(REDIRECTS_FILE, files.redirects),
      ownHosts,
    ),
    ...headerIssues(files.headers.map((h) => h.rule), at(HEADERS_FILE, files.headers)),
  );
  return issues;
}

/**
 * Reads and checks the build output's rule files (an absent file holds no rules). The deploy
 * applies them after the config's rules ({@linkcode mergeRules}).
 *
 * @param distDir the build output directory
 * @param origin the site's origin (`https://host`), whose URLs are checked like paths
 * @returns the files' rules, in order
 * @throws DeployError `rules_invalid` for a file too large, a line breaking the grammar, an
 *   unsupported feature, a rule breaking a field rule or a target leaving the site root;
 *   before anything is uploaded
 */
export async function readRuleFiles(distDir: string, origin?: string): Promise<SiteRules> {
  const redirectsText = await readRuleFile(`${distDir}/${REDIRECTS_FILE}`, REDIRECTS_FILE);
  const headersText = await readRuleFile(`${distDir}/${HEADERS_FILE}`, HEADERS_FILE);
  const files = {
    redirects: redirectsText === undefined ? [] : parseRedirectsFile(redirectsText),
    headers: headersText === undefined ? [] : parseHeadersFile(headersText),
  };
  const issues = fileRuleIssues(files, origin === undefined ? [] : [new URL(origin).hostname]);
  if (issues.length > 0) throw rulesInvalid(issues);
  return mergeRules({ redirects: [], headers: [] }, files);
}

/** A rules file's text, refusing one too large before reading it whole. */
async function readRuleFile(path: string, file: string): Promise<string | undefined> {
  const info = await Deno.stat(path).catch((err) => {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  });
  if (!info?.isFile) return undefined;
  if (info.size > MAX_RULE_FILE_BYTES) {
    throw new DeployError(
      "rules_invalid",
      `${file} is too large: ${info.size} bytes, over ${MAX_RULE_FILE_BYTES}`,
      { hint: "move rules to fewer patterns with * and :placeholders; nothing was uploaded" },
    );
  }
  return await Deno.readTextFile(path);
}
