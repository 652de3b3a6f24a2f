/**
 * The one rule for text the service stores: no U+0000 (NUL) and no unpaired surrogate.
 *
 * Deno KV stores any JavaScript string; PostgreSQL refuses NUL in `text` and `jsonb`
 * (`invalid byte sequence for encoding "UTF8": 0x00`), refuses `\ud800`-style escapes in
 * `jsonb`, and silently turns an unpaired surrogate in `text` into U+FFFD. So that an answer
 * never depends on the store, every writer applies this rule before any store: the internal API
 * refuses such text with a 400 naming the field, and sign-in replaces the characters in what a
 * provider sent for display (see `docs/http-api.md`, "Text the service stores").
 *
 * @module
 */

/** What {@linkcode toStorableText} puts in place of each character the stores cannot hold. */
export const REPLACEMENT_CHARACTER = "\uFFFD";

/**
 * Whether every store holds `text` exactly as given.
 *
 * @param text the value
 * @returns false when it contains U+0000 or an unpaired surrogate
 *
 * @example
 * ```ts
 * isStorableText("Ada 🚀"); // true
 * isStorableText("Ada\0"); // false
 * ```
 */
export function isStorableText(text: string): boolean {
  return text.isWellFormed() && !text.includes("\0");
}

/**
 * `text` with each U+0000 and each unpaired surrogate replaced by U+FFFD, for values taken from
 * a provider for display, where refusing would refuse the sign-in.
 *
 * @param text the value
 * @returns `text` itself when {@linkcode isStorableText}, else the replaced copy (same length)
 */
export function toStorableText(text: string): string {
  return isStorableText(text) ? text : text.toWellFormed().replaceAll("\0", REPLACEMENT_CHARACTER);
}

/**
 * Whether every string inside a JSON value, object keys included, at any depth, is
 * {@linkcode isStorableText}. Callers bound the depth first (the internal API refuses deeper
 * than 32 levels), so the walk is bounded too.
 *
 * @param value a parsed JSON value
 * @returns false when any key or string value is not storable
 */
export function isStorableJson(value: unknown): boolean {
  if (typeof value === "string") return isStorableText(value);
  if (typeof value !== "object" || value === null) return true;
  if (Array.isArray(value)) return value.every(isStorableJson);
  return Object.entries(value).every(([k, v]) => isStorableText(k) && isStorableJson(v));
}
