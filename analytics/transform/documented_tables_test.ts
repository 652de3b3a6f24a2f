import assert from "node:assert/strict";
import { KNOWN_BOTS } from "./bots.ts";
import { CHANNEL_RULES } from "./channel.ts";

const DOC = new URL("../../docs/analytics.md", import.meta.url);

/** The row of the table whose header starts `header` in docs/analytics.md, first cell `first`. */
async function docRow(header: string, first: string): Promise<string> {
  const lines = (await Deno.readTextFile(DOC)).split("\n");
  const start = lines.findIndex((l) => l.replace(/\s+/g, " ").startsWith(`| ${header}`));
  assert.ok(start >= 0, `docs/analytics.md has no table headed ${header}`);
  const row = lines.slice(start + 1).find((l) => l.replace(/\s+/g, " ").startsWith(`| ${first} |`));
  assert.ok(row, `docs/analytics.md has no table row for ${first}`);
  return row;
}

Deno.test("docs/analytics.md lists the channel table as the transform applies it", async () => {
  for (const rule of CHANNEL_RULES) {
    const hosts = [
      ...(await docRow("channel | referrer hosts", `\`${rule.channel}\``)).matchAll(/`([^`]+)`/g),
    ]
      .map((m) => m[1]).slice(1);
    assert.deepEqual(hosts, rule.hosts, rule.channel);
  }
});

Deno.test("docs/analytics.md names every bot of the table under its category", async () => {
  for (const category of ["ai", "search", "monitor"] as const) {
    const row = await docRow("`bot_category` | `bot_name`", `\`${category}\``);
    for (const bot of KNOWN_BOTS.filter((b) => b.category === category)) {
      assert.ok(row.includes(bot.name), `${category}: ${bot.name}`);
    }
  }
});
