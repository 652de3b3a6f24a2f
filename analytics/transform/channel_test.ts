import assert from "node:assert/strict";
import { CHANNEL_RULES, referrerChannel } from "./channel.ts";

const HOST = "blog.example.com";

Deno.test("referrerChannel() places each channel's referrers", () => {
  const cases: [string, string][] = [
    ["https://chatgpt.com/", "ai"],
    ["https://www.perplexity.ai/search?q=x", "ai"],
    ["https://claude.ai/chat/123", "ai"],
    ["https://gemini.google.com/app", "ai"],
    ["https://copilot.microsoft.com/", "ai"],
    ["https://www.bing.com/chat?q=x", "ai"],
    ["https://www.google.com/", "search"],
    ["https://www.google.co.uk/", "search"],
    ["https://google.de/", "search"],
    ["https://www.bing.com/search?q=x", "search"],
    ["https://duckduckgo.com/", "search"],
    ["android-app://com.google.android.googlequicksearchbox/", "search"],
    ["https://mail.google.com/", "email"],
    ["android-app://com.google.android.gm/", "email"],
    ["https://outlook.live.com/mail/0/", "email"],
    ["https://t.co/abc", "social"],
    ["https://l.facebook.com/l.php?u=x", "social"],
    ["https://news.ycombinator.com/item?id=1", "social"],
    ["https://old.reddit.com/r/deno/", "social"],
    ["https://bsky.app/profile/x", "social"],
    ["https://news.example.org/", "other"],
    ["https://docs.google.com/document/d/1", "other"],
    ["https://notgoogle.com/", "other"],
  ];
  for (const [referrer, channel] of cases) {
    assert.equal(referrerChannel(referrer, HOST, null), channel, referrer);
  }
});

Deno.test("referrerChannel() counts no referrer and the site's own host as direct", () => {
  assert.equal(referrerChannel(null, HOST, null), "direct");
  assert.equal(referrerChannel("", HOST, null), "direct");
  assert.equal(referrerChannel("https://blog.example.com/posts/", HOST, null), "direct");
  assert.equal(referrerChannel("https://WWW.Blog.Example.com./", HOST, null), "direct");
  assert.equal(
    referrerChannel("https://blog.example.com/", "www.blog.example.com", null),
    "direct",
  );
  assert.equal(referrerChannel("https://example.com/", HOST, null), "other", "another host");
});

Deno.test("referrerChannel() falls back to utm_medium when the referrer names no channel", () => {
  assert.equal(referrerChannel(null, HOST, "newsletter"), "email");
  assert.equal(referrerChannel("https://news.example.org/", HOST, "social"), "social");
  assert.equal(referrerChannel("https://www.google.com/", HOST, "email"), "search");
  assert.equal(referrerChannel(null, HOST, "cpc"), "direct");
});

Deno.test("referrerChannel() counts a malformed referrer as other", () => {
  for (const referrer of ["not a url", "http://[::1", "https://", "%%%", "x".repeat(10_000)]) {
    assert.equal(referrerChannel(referrer, HOST, null), "other", referrer.slice(0, 20));
  }
});

Deno.test("CHANNEL_RULES puts AI assistants and mail before search, and names the issue's assistants", () => {
  assert.deepEqual(CHANNEL_RULES.map((r) => r.channel), ["ai", "email", "search", "social"]);
  for (const host of ["chatgpt.com", "perplexity.ai", "claude.ai", "gemini.google.com"]) {
    assert.ok(CHANNEL_RULES[0]!.hosts.includes(host), host);
  }
});
