/**
 * The subscriber count a feed reader states in its user agent. Hosted readers fetch a feed
 * once for all their users and say how many they are: Feedly
 * (`Feedly/1.0 (+http://www.feedly.com/fetcher.html; 16 subscribers; …)`), Inoreader
 * (`… Inoreader/1.0; +https://www.inoreader.com; 22 subscribers)`), NewsBlur
 * (`NewsBlur Feed Fetcher - 5 subscribers - …`), Feedbin, The Old Reader and others. The user
 * agent itself is not stored, so the count is kept as a column of its own.
 *
 * @module
 */

/** The largest count kept (the column is an Iceberg `int`); a larger one is not a count. */
const MAX_SUBSCRIBERS = 2_000_000_000;

/**
 * The subscriber count a user agent states (pure): the number before `subscriber(s)`, the
 * first such, in the first 500 characters.
 *
 * @param userAgent the `User-Agent` header (null when none was sent)
 * @returns the count, or null when none is stated
 *
 * @example
 * ```ts
 * statedSubscribers("Feedly/1.0 (+http://www.feedly.com/fetcher.html; 16 subscribers)"); // 16
 * statedSubscribers("Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0"); // null
 * ```
 */
export function statedSubscribers(userAgent: string | null): number | null {
  if (userAgent === null) return null;
  const match = /(?<![\w.])(\d{1,10}) subscribers?\b/i.exec(userAgent.slice(0, 500));
  if (!match) return null;
  const count = Number(match[1]);
  return count <= MAX_SUBSCRIBERS ? count : null;
}
