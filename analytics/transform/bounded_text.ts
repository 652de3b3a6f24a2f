/**
 * Bounding text that comes from a request before it is stored: control characters out,
 * whitespace trimmed, at most a given number of characters (never half a surrogate pair).
 *
 * @module
 */

/**
 * The text, cleaned and bounded (pure); null when nothing is left.
 *
 * @param value the raw text
 * @param max the most characters (code points) kept
 * @returns the text, or null
 *
 * @example
 * ```ts
 * boundedText("  News\u0000letter  ", 100); // "Newsletter"
 * ```
 */
export function boundedText(value: string, max: number): string | null {
  const clean = value.replace(/\p{Cc}/gu, "").trim();
  if (clean === "") return null;
  const chars = Array.from(clean);
  return chars.length > max ? chars.slice(0, max).join("").trimEnd() : clean;
}
