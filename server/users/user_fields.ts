/**
 * The bounds of a user record's text fields, shared by everything that writes one: the
 * internal API refuses a longer value, sign-in refuses (`external_id`) or shortens
 * (`display_name`) what a provider sent. One table, so both paths store the same shapes.
 *
 * @module
 */
import { MAX_EMAIL_CHARS } from "./email_address.ts";

/** Longest value of each user text field, in UTF-16 code units (JavaScript `length`). */
export const USER_FIELD_LIMITS = {
  external_id: 255,
  provider: 64,
  email: MAX_EMAIL_CHARS,
  display_name: 256,
} as const;

/**
 * `text` cut to at most `max` UTF-16 code units, never between the two halves of a surrogate
 * pair (so the result is still well-formed text).
 *
 * @param text the value
 * @param max the longest result
 * @returns `text` itself when short enough, else its longest well-formed prefix
 *
 * @example
 * ```ts
 * truncateText("x".repeat(300), USER_FIELD_LIMITS.display_name).length; // 256
 * ```
 */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  // A high surrogate as the last kept unit would be half a character: drop it too.
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
