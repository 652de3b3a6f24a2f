import assert from "node:assert/strict";
import { statedSubscribers } from "./feed_reader.ts";

Deno.test("statedSubscribers() reads the count hosted feed readers state", () => {
  const cases: [string | null, number | null][] = [
    [
      "Feedly/1.0 (+http://www.feedly.com/fetcher.html; 16 subscribers; like FeedFetcher-Google)",
      16,
    ],
    ["Mozilla/5.0 (compatible; Inoreader/1.0; +https://www.inoreader.com; 22 subscribers)", 22],
    ["NewsBlur Feed Fetcher - 1 subscriber - https://www.newsblur.com/site/6159/blog", 1],
    ["Feedbin feed-id:1234 - 3 Subscribers", 3],
    ["Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0", null],
    ["Reader/2.0 (12345678901 subscribers)", null],
    ["Reader/2.0 (x9 subscribers)", null],
    [null, null],
  ];
  for (const [ua, count] of cases) assert.equal(statedSubscribers(ua), count, String(ua));
});
