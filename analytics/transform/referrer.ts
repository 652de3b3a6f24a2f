/**
 * The Referer as the table keeps it.
 *
 * @module
 */
import { boundedText } from "./bounded_text.ts";

/** The most characters of a Referer kept: a page URL, not a payload. */
export const REFERRER_MAX = 1_000;

/**
 * The Referer as stored (pure): without its query string and fragment, control characters out,
 * at most {@linkcode REFERRER_MAX} characters; null when none was sent. A referring page's query
 * can hold search terms, a token or an address, and no panel needs it: the referrers panel
 * counts hosts, and a broken link is found from the page that links to it.
 *
 * @param referer the decoded `cs(Referer)`, or null
 * @returns what is stored
 *
 * @example
 * ```ts
 * storedReferrer("https://mail.example.net/read?id=42&to=a@b.example#top");
 * // "https://mail.example.net/read"
 * ```
 */
export function storedReferrer(referer: string | null): string | null {
  if (referer === null) return null;
  const end = referer.search(/[?#]/);
  return boundedText(end === -1 ? referer : referer.slice(0, end), REFERRER_MAX);
}
