import assert from "node:assert/strict";
import { identifyBot, isBotAgent, KNOWN_BOTS, NO_USER_AGENT } from "./bots.ts";

Deno.test("isBotAgent() flags crawlers, monitors and tools", () => {
  for (
    const ua of [
      "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
      "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
      "curl/8.5.0",
      "python-requests/2.32.3",
      "Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)",
      "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    ]
  ) {
    assert.equal(isBotAgent(ua), true, ua);
  }
});

Deno.test("isBotAgent() passes browsers", () => {
  for (
    const ua of [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
      "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0",
    ]
  ) {
    assert.equal(isBotAgent(ua), false, ua);
    assert.equal(identifyBot(ua), null, ua);
  }
});

Deno.test("isBotAgent() counts a missing user agent as a bot", () => {
  assert.equal(isBotAgent(null), true);
  assert.equal(isBotAgent("  "), true);
  assert.deepEqual(identifyBot(""), { category: "other", name: NO_USER_AGENT });
});

Deno.test("identifyBot() names search crawlers, AI crawlers and monitors from their user agents", () => {
  const cases: [string, string, string][] = [
    [
      "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
      "search",
      "Googlebot",
    ],
    [
      "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
      "search",
      "Bingbot",
    ],
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)",
      "search",
      "Applebot",
    ],
    [
      "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
      "ai",
      "GPTBot",
    ],
    [
      "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)",
      "ai",
      "OAI-SearchBot",
    ],
    [
      "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
      "ai",
      "ClaudeBot",
    ],
    [
      "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)",
      "ai",
      "PerplexityBot",
    ],
    ["CCBot/2.0 (https://commoncrawl.org/faq/)", "ai", "CCBot"],
    ["Mozilla/5.0 (compatible; Google-Extended)", "ai", "Google-Extended"],
    [
      "Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)",
      "ai",
      "Bytespider",
    ],
    [
      "Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)",
      "monitor",
      "UptimeRobot",
    ],
    ["Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)", "monitor", "Pingdom"],
  ];
  for (const [ua, category, name] of cases) {
    assert.deepEqual(identifyBot(ua), { category, name }, ua);
    assert.equal(isBotAgent(ua), true, ua);
  }
});

Deno.test("identifyBot() names other bots after the product they give", () => {
  const cases: [string, string][] = [
    ["curl/8.5.0", "curl"],
    ["python-requests/2.32.3", "python-requests"],
    ["Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)", "SemrushBot"],
    ["Mozilla/5.0 (compatible; Google-InspectionTool/1.0)", "Google-InspectionTool"],
    [
      "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
      "facebookexternalhit",
    ],
  ];
  for (const [ua, name] of cases) {
    assert.deepEqual(identifyBot(ua), { category: "other", name }, ua);
  }
});

Deno.test("identifyBot() bounds the name of a bot with an absurd token", () => {
  const out = identifyBot(`${"A".repeat(5_000)}bot/1.0`)!;
  assert.equal(out.category, "other");
  assert.equal(out.name.length, 50);
});

Deno.test("KNOWN_BOTS lists each name once, and every AI entry comes before every search entry", () => {
  const names = KNOWN_BOTS.map((b) => b.name);
  assert.equal(new Set(names).size, names.length);
  const lastAi = KNOWN_BOTS.findLastIndex((b) => b.category === "ai");
  const firstSearch = KNOWN_BOTS.findIndex((b) => b.category === "search");
  assert.ok(lastAi < firstSearch);
});
