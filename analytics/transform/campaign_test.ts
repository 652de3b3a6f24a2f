import assert from "node:assert/strict";
import { campaignFields } from "./campaign.ts";

const none = { utm_source: null, utm_medium: null, utm_campaign: null };

Deno.test("campaignFields() keeps the three utm keys, lowercased, and nothing else", () => {
  assert.deepEqual(
    campaignFields(
      "utm_source=Newsletter&utm_medium=EMAIL&utm_campaign=Spring_Sale&utm_term=x&id=7",
    ),
    { utm_source: "newsletter", utm_medium: "email", utm_campaign: "spring_sale" },
  );
  assert.deepEqual(campaignFields(null), none);
  assert.deepEqual(campaignFields("page=2&q=secret"), none);
});

Deno.test("campaignFields() takes the first non-empty value of a repeated key", () => {
  assert.deepEqual(campaignFields("utm_source=&utm_source=Feed&utm_source=other"), {
    ...none,
    utm_source: "feed",
  });
  assert.deepEqual(campaignFields("UTM_Source=Mastodon"), { ...none, utm_source: "mastodon" });
});

Deno.test("campaignFields() decodes once and keeps odd encodings harmless", () => {
  assert.deepEqual(campaignFields("utm_source=Hacker+News&utm_campaign=%E2%9C%93%20launch"), {
    ...none,
    utm_source: "hacker news",
    utm_campaign: "✓ launch",
  });
  assert.deepEqual(campaignFields("utm_source=%2541"), { ...none, utm_source: "%41" });
  assert.deepEqual(campaignFields("utm_source=%ZZ%&utm_medium=%0A%00email%1B"), {
    ...none,
    utm_source: "%zz%",
    utm_medium: "email",
  });
  assert.deepEqual(campaignFields("utm_source=%20%09"), none);
});

Deno.test("campaignFields() bounds a 10 kB value to 100 characters", () => {
  const out = campaignFields(`${"x=1&".repeat(2_000)}utm_campaign=${"é".repeat(10_000)}`);
  assert.equal(out.utm_campaign, "é".repeat(100));
  const emoji = campaignFields(`utm_source=${"😀".repeat(150)}`).utm_source!;
  assert.equal(Array.from(emoji).length, 100, "whole code points, no half surrogate");
});
