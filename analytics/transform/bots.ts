/**
 * Bots: whether a user agent is one, from the `isbot` package's pattern list (maintained
 * upstream against crawler, monitor and preview-fetcher user agents, updated with every release;
 * pinned in `analytics/deno.json` and bundled into the transform), and, for a bot, its category
 * and name from {@linkcode KNOWN_BOTS}, a table of the crawlers site owners ask about.
 *
 * @module
 */
import { isbot } from "isbot";
import { boundedText } from "./bounded_text.ts";

/** What kind of bot a request came from. */
export type BotCategory = "search" | "ai" | "monitor" | "other";

/** A bot the table names. */
export interface KnownBot {
  /** The name stored in `bot_name`. */
  readonly name: string;
  /** Its category. */
  readonly category: Exclude<BotCategory, "other">;
  /** What its user agent contains (case-insensitive). */
  readonly pattern: RegExp;
}

const bot = (
  category: KnownBot["category"],
  name: string,
  token: string = name,
): KnownBot => ({
  name,
  category,
  pattern: new RegExp(token.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i"),
});

/**
 * The named bots, first match wins: AI crawlers and fetchers first, because several carry a
 * search crawler's token too (`Applebot-Extended`, `OAI-SearchBot`); then search engines'
 * crawlers; then uptime monitors. `Google-Extended` and `Applebot-Extended` are robots.txt
 * tokens their owners document; a request naming them is counted as AI.
 */
export const KNOWN_BOTS: readonly KnownBot[] = [
  bot("ai", "GPTBot"),
  bot("ai", "ChatGPT-User"),
  bot("ai", "OAI-SearchBot"),
  bot("ai", "ClaudeBot"),
  bot("ai", "Claude-User"),
  bot("ai", "Claude-SearchBot"),
  bot("ai", "anthropic-ai"),
  bot("ai", "PerplexityBot"),
  bot("ai", "Perplexity-User"),
  bot("ai", "CCBot"),
  bot("ai", "Google-Extended"),
  bot("ai", "Applebot-Extended"),
  bot("ai", "Bytespider"),
  bot("ai", "Amazonbot"),
  bot("ai", "meta-externalagent"),
  bot("ai", "cohere-ai"),
  bot("ai", "MistralAI-User"),
  bot("ai", "Diffbot"),
  bot("ai", "YouBot"),
  bot("search", "Googlebot"),
  bot("search", "Bingbot"),
  bot("search", "DuckDuckBot"),
  bot("search", "YandexBot"),
  bot("search", "Baiduspider"),
  bot("search", "Applebot"),
  bot("search", "Yahoo! Slurp", "Slurp"),
  bot("search", "SeznamBot"),
  bot("search", "Qwantbot"),
  bot("search", "PetalBot"),
  bot("monitor", "UptimeRobot"),
  bot("monitor", "Pingdom"),
  bot("monitor", "StatusCake"),
  bot("monitor", "Site24x7"),
  bot("monitor", "Better Stack", "Better Uptime"),
  bot("monitor", "Datadog Synthetics", "DatadogSynthetics"),
  bot("monitor", "Checkly"),
  bot("monitor", "Uptime Kuma", "Uptime-Kuma"),
  bot("monitor", "Freshping"),
  bot("monitor", "HetrixTools"),
  bot("monitor", "Oh Dear", "OhDear"),
  bot("monitor", "Route 53 health check", "Amazon-Route53-Health-Check-Service"),
  bot("monitor", "ELB health check", "ELB-HealthChecker"),
];

/** The name a request without a user agent is stored under. */
export const NO_USER_AGENT = "(no user agent)";

/** The most characters of a bot name. */
export const BOT_NAME_MAX = 50;

/** A bot's category and name. */
export interface BotIdentity {
  readonly category: BotCategory;
  readonly name: string;
}

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
  return identifyBot(userAgent) !== null;
}

/**
 * Who a bot is (pure): a named bot's category and name from {@linkcode KNOWN_BOTS}; any other
 * user agent `isbot` flags (and a missing one) is `other`, named after the product token it
 * gives (`curl`, `SemrushBot`). Null for a browser.
 *
 * @param userAgent the User-Agent header, or null when absent
 * @returns the category and name, or null when it is not a bot
 *
 * @example
 * ```ts
 * identifyBot("Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)");
 * // { category: "ai", name: "GPTBot" }
 * ```
 */
export function identifyBot(userAgent: string | null): BotIdentity | null {
  if (userAgent === null || userAgent.trim() === "") {
    return { category: "other", name: NO_USER_AGENT };
  }
  const known = KNOWN_BOTS.find((b) => b.pattern.test(userAgent));
  if (known) return { category: known.category, name: known.name };
  return isbot(userAgent) ? { category: "other", name: productName(userAgent) } : null;
}

/**
 * The name an unlisted bot gives itself: a token ending in bot/crawler/spider…, else what
 * follows `compatible;`, else the leading product token; `unknown` when none is found.
 */
function productName(userAgent: string): string {
  const found = /([A-Za-z][\w.-]*(?:bot|crawler|spider|fetcher|scraper|checker))\b/i.exec(
    userAgent,
  )?.[1] ??
    /\bcompatible;\s*([A-Za-z][\w.-]*)/i.exec(userAgent)?.[1] ??
    /^(?!mozilla\/)([A-Za-z][\w.-]*)/i.exec(userAgent)?.[1];
  return boundedText(found ?? "", BOT_NAME_MAX) ?? "unknown";
}
