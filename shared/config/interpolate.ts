import type { ConfigIssue } from "./issue.ts";

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces `${VAR}` placeholders in every string of a parsed config with values from `env`.
 *
 * `$${VAR}` is not special-cased; write the literal in the environment instead. An unset
 * variable is an issue naming both the key path and the variable, and every one is reported.
 *
 * @param value a parsed config value (objects and arrays are walked)
 * @param env the variables to read, passed in so nothing reads the process environment here
 * @returns the value with placeholders replaced, and the issues for unset variables
 *
 * @example
 * ```ts
 * const { value, issues } = interpolate({ secret: "${SECRET}" }, { SECRET: "s3cr3t" });
 * // value = { secret: "s3cr3t" }, issues = []
 * ```
 */
export function interpolate(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
): { value: unknown; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const walk = (v: unknown, path: string): unknown => {
    if (typeof v === "string") {
      return v.replace(PLACEHOLDER, (_, name: string) => {
        const found = env[name];
        if (found === undefined) {
          issues.push({ path, message: `environment variable ${name} is not set` });
          return "";
        }
        return found;
      });
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, `${path}[${i}]`));
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(
        Object.entries(v).map(([k, item]) => [k, walk(item, path ? `${path}.${k}` : k)]),
      );
    }
    return v;
  };
  return { value: walk(value, ""), issues };
}
