/**
 * User-perceived characters (extended grapheme clusters, `Intl.Segmenter`): the unit the AT
 * Protocol lexicons' `maxGraphemes` counts, so an emoji with its modifiers or a letter with its
 * combining marks is one, whatever its code units or bytes.
 *
 * @module
 */

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * The grapheme clusters of a string, in order.
 *
 * @param text the string
 * @returns its user-perceived characters
 */
export function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/**
 * How many user-perceived characters a string holds.
 *
 * @param text the string
 * @returns the grapheme count
 */
export function graphemeCount(text: string): number {
  let n = 0;
  for (const _ of segmenter.segment(text)) n++;
  return n;
}
