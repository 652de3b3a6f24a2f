/**
 * Where a visit came from, as a channel: the referrer's host looked up in
 * {@linkcode CHANNEL_RULES}, then the campaign's `utm_medium`, then `direct` (no referrer, or
 * one on the site's own host) or `other`. The table is documented in docs/analytics.md.
 *
 * @module
 */

/** The channels. */
export type Channel = "search" | "social" | "ai" | "email" | "direct" | "other";

/** One row of the table: referrer hosts (and, optionally, paths) of one channel. */
export interface ChannelRule {
  readonly channel: Exclude<Channel, "direct" | "other">;
  /**
   * Hosts: `example.com` matches it and its subdomains; `google.*` matches `google.<tld>` and
   * `www.google.<tld>` for any one- or two-label TLD (`google.de`, `google.co.uk`);
   * `bing.com/chat` also needs the path to start with `/chat`.
   */
  readonly hosts: readonly string[];
}

/**
 * The referrer table, first match wins: AI assistants before search engines (Gemini and Copilot
 * live under Google's and Microsoft's domains), web mail before search (Gmail is
 * `mail.google.com`). Android apps refer as `android-app://<package>`; the package is matched
 * as a host.
 */
export const CHANNEL_RULES: readonly ChannelRule[] = [
  {
    channel: "ai",
    hosts: [
      "chatgpt.com",
      "chat.openai.com",
      "perplexity.ai",
      "claude.ai",
      "gemini.google.com",
      "copilot.microsoft.com",
      "bing.com/chat",
      "bing.com/copilot",
      "chat.deepseek.com",
      "chat.mistral.ai",
      "com.openai.chatgpt",
      "ai.perplexity.app.android",
    ],
  },
  {
    channel: "email",
    hosts: [
      "mail.google.com",
      "outlook.live.com",
      "outlook.office.com",
      "outlook.office365.com",
      "mail.yahoo.com",
      "mail.proton.me",
      "app.fastmail.com",
      "mail.aol.com",
      "mail.yandex.ru",
      "com.google.android.gm",
      "com.microsoft.office.outlook",
    ],
  },
  {
    channel: "search",
    hosts: [
      "google.*",
      "bing.com",
      "duckduckgo.com",
      "search.yahoo.com",
      "yandex.*",
      "baidu.com",
      "ecosia.org",
      "search.brave.com",
      "kagi.com",
      "startpage.com",
      "qwant.com",
      "search.naver.com",
      "seznam.cz",
      "com.google.android.googlequicksearchbox",
    ],
  },
  {
    channel: "social",
    hosts: [
      "facebook.com",
      "instagram.com",
      "t.co",
      "twitter.com",
      "x.com",
      "linkedin.com",
      "lnkd.in",
      "reddit.com",
      "news.ycombinator.com",
      "bsky.app",
      "mastodon.social",
      "threads.net",
      "youtube.com",
      "pinterest.com",
      "tiktok.com",
      "lobste.rs",
      "com.reddit.frontpage",
      "com.linkedin.android",
    ],
  },
];

/** `utm_medium` values that name a channel when the referrer does not. */
export const MEDIUM_CHANNELS: Readonly<Record<string, ChannelRule["channel"]>> = {
  email: "email",
  "e-mail": "email",
  newsletter: "email",
  social: "social",
  "social-media": "social",
  "social-network": "social",
};

/**
 * The channel of a request (pure).
 *
 * @param referrer the Referer header (null when absent)
 * @param host the host the viewer asked for: a referrer on it (with or without `www.`) is the
 *   site itself, so the visit counts as `direct`
 * @param utmMedium the campaign medium, lowercased (null when absent)
 * @returns the channel
 *
 * @example
 * ```ts
 * referrerChannel("https://www.google.de/", "blog.example.com", null); // "search"
 * referrerChannel(null, "blog.example.com", "newsletter"); // "email"
 * ```
 */
export function referrerChannel(
  referrer: string | null,
  host: string | null,
  utmMedium: string | null,
): Channel {
  const from = referrerParts(referrer);
  const own = host !== null && from !== null && siteHost(from.host) === siteHost(host);
  if (from !== null && !own) {
    const rule = CHANNEL_RULES.find((r) => r.hosts.some((h) => hostMatches(h, from)));
    if (rule) return rule.channel;
  }
  const medium = utmMedium === null ? undefined : MEDIUM_CHANNELS[utmMedium];
  if (medium) return medium;
  if (referrer === null || referrer.trim() === "" || own) return "direct";
  return "other";
}

interface ReferrerParts {
  readonly host: string;
  readonly path: string;
}

/** The referrer's host and path; null when it is not a URL with a host. */
function referrerParts(referrer: string | null): ReferrerParts | null {
  if (referrer === null) return null;
  let url: URL;
  try {
    url = new URL(referrer.trim());
  } catch {
    return null;
  }
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  return host === "" ? null : { host, path: url.pathname };
}

function siteHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, "").replace(/^www\./, "");
}

function hostMatches(pattern: string, from: ReferrerParts): boolean {
  const slash = pattern.indexOf("/");
  const domain = slash < 0 ? pattern : pattern.slice(0, slash);
  if (slash >= 0 && !from.path.startsWith(pattern.slice(slash))) return false;
  if (domain.endsWith(".*")) {
    const name = domain.slice(0, -2).replace(/[.]/g, "\\.");
    return new RegExp(`^(?:www\\.)?${name}(?:\\.[a-z]{2,6}){1,2}$`).test(from.host);
  }
  return from.host === domain || from.host.endsWith(`.${domain}`);
}
