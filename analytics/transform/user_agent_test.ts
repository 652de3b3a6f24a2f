import assert from "node:assert/strict";
import { parseUserAgent } from "./user_agent.ts";

Deno.test("parseUserAgent() reads browser, major version, OS and device class", () => {
  const cases: [string, unknown][] = [
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      { browser: "Chrome", browser_version: 131, os: "Windows", device: "desktop" },
    ],
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
      { browser: "Edge", browser_version: 131, os: "Windows", device: "desktop" },
    ],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
      { browser: "Mobile Safari", browser_version: 18, os: "iOS", device: "mobile" },
    ],
    [
      "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
      { browser: "Mobile Safari", browser_version: 17, os: "iOS", device: "tablet" },
    ],
    [
      "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36",
      { browser: "Samsung Internet", browser_version: 25, os: "Android", device: "mobile" },
    ],
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
      { browser: "Safari", browser_version: 17, os: "Mac OS", device: "desktop" },
    ],
  ];
  for (const [ua, want] of cases) assert.deepEqual(parseUserAgent(ua, false), want, ua);
});

Deno.test("parseUserAgent() says only `bot` of a bot, and of a missing user agent", () => {
  const bot = { browser: null, browser_version: null, os: null, device: "bot" };
  assert.deepEqual(parseUserAgent("Googlebot/2.1", true), bot);
  assert.deepEqual(parseUserAgent(null, false), bot);
});

Deno.test("parseUserAgent() survives empty, 10 kB and control-character user agents", () => {
  assert.deepEqual(parseUserAgent("", false), {
    browser: null,
    browser_version: null,
    os: null,
    device: "desktop",
  });
  const long = `Mozilla/5.0 (Windows NT 10.0) Chrome/131.0 ${"(;".repeat(5_000)}`;
  assert.equal(long.length > 10_000, true);
  const parsed = parseUserAgent(long, false);
  assert.equal(parsed.browser, "Chrome");
  assert.equal(parsed.os, "Windows");
  const control = parseUserAgent(
    "Mozilla/5.0 (X11; Linux\u0000\u001b[2J) Firefox/99999999999",
    false,
  );
  assert.equal(control.browser, "Firefox");
  assert.equal(control.browser_version, null, "beyond an Iceberg int");
  assert.ok(![control.browser, control.os].some((v) => v !== null && /\p{Cc}/u.test(v)));
});
