/**
 * A single problem found while loading or resolving configuration.
 *
 * Resolvers collect every issue instead of stopping at the first, so an operator fixes a file
 * in one pass.
 */
export interface ConfigIssue {
  /** Dotted key path the problem is about (`server.port`, `microvm.memory`); `""` for the file. */
  readonly path: string;
  /** What is wrong and, where useful, the rule that was broken. */
  readonly message: string;
}

/**
 * Thrown when configuration cannot be used; carries every issue found.
 *
 * @example
 * ```ts
 * const err = new ConfigError([{ path: "server.port", message: "must be an integer from 0 to 65535" }]);
 * if (err.issues.length !== 1) throw new Error("one issue");
 * ```
 */
export class ConfigError extends Error {
  override name = "ConfigError";
  /** Every problem found, in file order where that is known. */
  readonly issues: readonly ConfigIssue[];

  /**
   * @param issues every problem found (at least one)
   * @param file the file the issues are about, named in the message when given
   */
  constructor(issues: readonly ConfigIssue[], readonly file?: string) {
    super(formatIssues(issues, file));
    this.issues = issues;
  }
}

/**
 * Renders issues as an indented list, one per line, prefixed by the file when known.
 *
 * @param issues the problems to print
 * @param file optional file name for the heading line
 * @returns a multi-line human-readable message
 */
export function formatIssues(issues: readonly ConfigIssue[], file?: string): string {
  const head = file ? `invalid configuration in ${file}:` : "invalid configuration:";
  const lines = issues.map((i) => `  - ${i.path ? `${i.path}: ` : ""}${i.message}`);
  return [head, ...lines].join("\n");
}
