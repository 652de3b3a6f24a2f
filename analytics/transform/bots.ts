/**
 * Whether a user agent is a bot, from the `isbot` package's pattern list (maintained upstream
 * against crawler, monitor and preview-fetcher user agents, updated with every release; pinned
 * in `analytics/deno.json` and bundled into the transform).
 *
 * @module
 */
import { isbot } from "isbot";

/**
 * Flags a user agent as a bot (pure). A missing user agent counts as a bot: browsers always
 * send one, scripts often do not.
 *
 * @param userAgent the User-Agent header, or null when absent
 * @returns true for a bot
 *
 * @example
 * ```ts
 * isBotAgent("Googlebot/2.1 (+http://www.google.com/bot.html)"); // true
 * ```
 */
export function isBotAgent(userAgent: string | null): boolean {
  return userAgent === null || userAgent.trim() === "" || isbot(userAgent);
}
