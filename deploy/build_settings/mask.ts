/**
 * Masks secret values in a build's output: a build that prints its environment, or a tool that
 * echoes a token in an error, must not put a secret on the user's terminal, in the builder's
 * log group or in `logs`.
 *
 * @module
 */

/** What a masked value reads as. */
export const MASK = "***";

/** Values shorter than this are not masked: masking `1` or `true` would garble every line. */
const MIN_MASKED = 4;

/**
 * A function that replaces every occurrence of any of `values` in a line with `***` (pure).
 * Longer values are replaced first, so a secret containing another is masked whole.
 *
 * @param values the secrets' values
 * @returns the masking function (the identity without values)
 *
 * @example
 * ```ts
 * const mask = secretMasker(["s3cr3t-token"]);
 * mask("token=s3cr3t-token"); // "token=***"
 * ```
 */
export function secretMasker(values: readonly string[]): (line: string) => string {
  const masked = [...new Set(values.filter((v) => v.length >= MIN_MASKED))]
    .sort((a, b) => b.length - a.length);
  if (masked.length === 0) return (line) => line;
  const escaped = masked.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const pattern = new RegExp(escaped.join("|"), "g");
  return (line) => line.replace(pattern, MASK);
}
