import assert from "node:assert/strict";
import { isBotAgent } from "./bots.ts";

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
  }
});

Deno.test("isBotAgent() counts a missing user agent as a bot", () => {
  assert.equal(isBotAgent(null), true);
  assert.equal(isBotAgent("  "), true);
});
