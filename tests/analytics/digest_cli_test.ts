/**
 * `deploy analytics digest` through the CLI runner, in-process: the real command, flags,
 * output and errors, reading a local DuckDB table in place of the site's Iceberg table (the
 * one thing swapped, through the command's own table opener). The rows are placed in the last
 * complete week before now, as the command counts it on the real clock.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { digestCommandWith } from "../../analytics/commands/digest.ts";
import { digestWeeks } from "../../analytics/digest/weekly_digest.ts";
import { testRow } from "../../analytics/queries/_test_rows.ts";
import { startInfraWorld } from "../deploy/infra_world.ts";
import { localTablePlugin } from "./local_table_plugin.ts";

Deno.test("analytics digest --week: Markdown on stdout, HTML to a file, JSON with --json, refusals", async () => {
  const { week, previousWeek } = digestWeeks(Date.now());
  const localPlugin = localTablePlugin("digest", digestCommandWith, [
    testRow(`${week.from}T10:00:00.000Z`),
    testRow(`${week.to}T10:00:00.000Z`, { uri: "/a", visitor_key: "v2" }),
    testRow(`${previousWeek.to}T10:00:00.000Z`),
  ]);
  await using world = await startInfraWorld({ siteName: "blog", region: "eu-west-1", app: "blog" });
  assert.equal((await world.run(["plugin", "add", "analytics"])).code, 0);
  const run = (args: string[]) =>
    world.run(["analytics", "digest", ...args], { importPlugin: localPlugin });

  const md = await run(["--week"]);
  assert.equal(md.code, 0, md.stderr);
  assert.match(md.stdout, new RegExp(`^# blog \\(production\\): week ${week.from} to ${week.to}`));
  assert.match(md.stdout, /\| Page views \| 2 \| 1 \| \+100 % \|/);
  assert.match(md.stdout, /\| \/a \| 1 \|/);

  const html = await run(["--week", "--format", "html", "--out", "digest.html"]);
  assert.equal(html.code, 0, html.stderr);
  assert.equal(html.stdout, "");
  assert.match(html.stderr, /Wrote the digest of .* to .*digest\.html/);
  assert.match(await Deno.readTextFile(join(world.root, "digest.html")), /<h2>Top pages<\/h2>/);

  const json = await run(["--week", "--json"]);
  assert.equal(json.code, 0, json.stderr);
  const digest = JSON.parse(json.stdout);
  assert.deepEqual([digest.week, digest.views], [week, { total: 2, previous: 1, change: 1 }]);

  const noPeriod = await run([]);
  assert.equal(noPeriod.code, 1);
  assert.match(noPeriod.stderr, /digest needs a period: --week/);

  const mixed = await run(["--week", "--json", "--format", "html"]);
  assert.equal(mixed.code, 1);
  assert.match(mixed.stdout + mixed.stderr, /--json writes JSON on stdout, not html/);

  const format = await run(["--week", "--format", "pdf"]);
  assert.equal(format.code, 1);
  assert.match(format.stderr, /--format must be one of markdown, html, json/);
});
