/**
 * `deploy analytics export` through the CLI runner, in-process: the real command, flags,
 * output and errors, reading a local DuckDB table of known rows in place of the site's Iceberg
 * table (the one thing swapped, through the command's own table opener).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { exportCommandWith } from "../../analytics/commands/export.ts";
import { PANEL_ROWS } from "../../analytics/queries/_test_rows.ts";
import { startInfraWorld } from "../deploy/infra_world.ts";
import { localTablePlugin } from "./local_table_plugin.ts";

const WEEK = ["--from", "2026-03-01", "--to", "2026-03-07"];

/** The plugin with its export reading a local table of {@linkcode PANEL_ROWS}. */
const localPlugin = localTablePlugin("export", exportCommandWith, PANEL_ROWS);

Deno.test("analytics export: CSV on stdout, JSON to a file, progress on stderr, refusals with their codes", async () => {
  await using world = await startInfraWorld({ siteName: "blog", region: "eu-west-1", app: "blog" });
  assert.equal((await world.run(["plugin", "add", "analytics"])).code, 0);
  const run = (args: string[]) =>
    world.run(["analytics", "export", ...args], { importPlugin: localPlugin });

  const csv = await run([...WEEK, "--query", "campaigns"]);
  assert.equal(csv.code, 0, csv.stderr);
  assert.equal(
    csv.stdout,
    '"utm_source","utm_medium","utm_campaign","views"\r\n' +
      '"newsletter","email","march",2\r\n' +
      '"google",,,1\r\n' +
      '"mastodon","social","launch",1\r\n',
  );
  assert.match(csv.stderr, /Running campaigns for 2026-03-01 to 2026-03-07/);

  const file = await run([
    ...WEEK,
    "--query",
    "entry_pages",
    "--format",
    "json",
    "--out",
    "e.json",
  ]);
  assert.equal(file.code, 0, file.stderr);
  assert.equal(file.stdout, "");
  assert.match(
    file.stderr,
    /Wrote 3 rows of entry_pages \(2026-03-01 to 2026-03-07\) to .*e\.json/,
  );
  const written = JSON.parse(await Deno.readTextFile(join(world.root, "e.json")));
  // analytics.bots is "flag" by default: the bots' own entries count too.
  assert.equal(written.bots, "include");
  assert.deepEqual(written.rows[0], { path: "/", entries: 5 });
  assert.deepEqual(written.previous, { from: "2026-02-22", to: "2026-02-28", total: 3 });

  const bots = await run([...WEEK, "--query", "bots", "--bots", "include", "--json"]);
  assert.equal(bots.code, 0, bots.stderr);
  assert.equal(JSON.parse(bots.stdout).total, 4);

  const badDays = await run(["--from", "2026-02-30", "--to", "2026-03-07", "--query", "views"]);
  assert.equal(badDays.code, 1);
  assert.match(badDays.stderr, /--from must be a UTC day YYYY-MM-DD, got "2026-02-30"/);
  assert.equal(badDays.stdout, "");

  // The log-only insights are export names too, with their panels' columns.
  for (
    const [query, header] of [
      ["downloads", '"path","referrer","downloads"'],
      ["feed_subscribers", '"reader","feed","subscribers","basis"'],
      ["ai_crawler_pages", '"crawler","path","reads"'],
      ["cdn_cost_paths", '"path","requests","bytes","hit_ratio"'],
    ]
  ) {
    const insight = await run([...WEEK, "--query", query!, "--bots", "include"]);
    assert.equal(insight.code, 0, insight.stderr);
    assert.equal(insight.stdout.split("\r\n")[0], header, query);
  }
  const cdn = await run([...WEEK, "--query", "cdn_cost", "--format", "json"]);
  assert.equal(cdn.code, 0, cdn.stderr);
  assert.equal(JSON.parse(cdn.stdout).rows.length, 7);

  const unknown = await run([...WEEK, "--query", "pages", "--json"]);
  assert.equal(unknown.code, 1);
  const { error } = JSON.parse(unknown.stdout || unknown.stderr);
  assert.equal(error.code, "unknown_query");
  assert.match(error.hint, /entry_pages/);

  const format = await run([...WEEK, "--query", "views", "--format", "xml"]);
  assert.equal(format.code, 1);
  assert.match(format.stderr, /--format must be one of csv, json/);

  const help = await run(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--query NAME/);
  assert.match(help.stdout, /entry_pages, devices/);
});
