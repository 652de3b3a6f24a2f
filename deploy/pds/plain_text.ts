/**
 * A post's text without its markup, for the `textContent` of its `site.standard.document`
 * record (search indexes read it; the lexicon asks for no Markdown or other formatting).
 * Deliberately small: it removes the syntax Markdown and MDX posts use and keeps the words;
 * it is not a Markdown renderer.
 *
 * @module
 */
import { graphemes } from "../config/graphemes.ts";

/** The longest `textContent` written, in UTF-8 bytes: records stay well under the PDS's limit. */
export const MAX_TEXT_CONTENT_BYTES = 100_000;

/**
 * The words of a Markdown or MDX body: headings, emphasis, links (their text), images (their
 * alt text), code fences (their code), HTML/JSX tags, MDX `import`/`export` lines and HTML
 * comments are reduced to plain text; blank-line-separated paragraphs are kept.
 *
 * @param body the post's body (after the frontmatter)
 * @returns the plain text, cut at {@linkcode MAX_TEXT_CONTENT_BYTES} on a character boundary
 *
 * @example
 * ```ts
 * markdownToText("# Hi\n\nSee [the docs](/docs) and **this**.");
 * // "Hi\n\nSee the docs and this."
 * ```
 */
export function markdownToText(body: string): string {
  const text = body
    .replace(/\r\n?/g, "\n")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/^(?:import|export)\s[^\n]*$/gm, "")
    .replace(/^[ \t]*(?:```|~~~)[^\n]*$/gm, "")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, "$1")
    .replace(/^[ \t]*\[[^\]]+\]:[^\n]*$/gm, "")
    .replace(/<\/?[A-Za-z][^<>]*>/g, "")
    .replace(/^[ \t]{0,3}#{1,6}[ \t]+/gm, "")
    .replace(/^[ \t]*>[ \t]?/gm, "")
    .replace(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+/gm, "")
    .replace(/^[ \t]*(?:[-*_][ \t]*){3,}$/gm, "")
    .replace(/(\*\*|__|~~)(?=\S)([\s\S]*?\S)\1/g, "$2")
    .replace(/(^|[^\w*])[*_](?=\S)([^*_\n]*?\S)[*_](?!\w)/g, "$1$2")
    .replace(/`([^`\n]*)`/g, "$1")
    .replace(/\{\/\*[\s\S]*?\*\/\}/g, "")
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return truncateUtf8(text, MAX_TEXT_CONTENT_BYTES);
}

/**
 * The longest prefix of `text` that fits in `maxBytes` of UTF-8 without splitting a character
 * (a user-perceived one: an emoji with its modifiers, a letter with its combining marks).
 *
 * @param text the text
 * @param maxBytes the budget
 * @returns `text`, or its longest fitting prefix
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  const encoder = new TextEncoder();
  if (encoder.encode(text).length <= maxBytes) return text;
  let out = "";
  let bytes = 0;
  for (const segment of graphemes(text)) {
    const size = encoder.encode(segment).length;
    if (bytes + size > maxBytes) break;
    out += segment;
    bytes += size;
  }
  return out;
}
