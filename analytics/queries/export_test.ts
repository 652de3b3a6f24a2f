import assert from "node:assert/strict";
import { DeployError } from "@org/deploy/plugin";
import { toCsv } from "./csv.ts";
import { exportQuery, parseExportRequest } from "./export.ts";
import { insertRows } from "./insert_rows.ts";
import { openLocalTable } from "./local_table.ts";
import { NAMED_QUERIES, runNamedQuery } from "./named_queries.ts";
import { PANEL_ROWS } from "./_test_rows.ts";

const plain = { includeBotsByDefault: false, json: false };
const WEEK = { from: "2026-03-01", to: "2026-03-07" };

function refusal(fn: () => unknown): DeployError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof DeployError);
    return err;
  }
  assert.fail("no error");
}

Deno.test("parseExportRequest() takes the flags, csv by default, json under --json", () => {
  assert.deepEqual(parseExportRequest({ ...WEEK, query: "entry_pages" }, plain), {
    query: "entry_pages",
    range: { ...WEEK, includeBots: false },
    format: "csv",
  });
  assert.deepEqual(
    parseExportRequest({ ...WEEK, query: "bots", bots: "include", out: "b.json" }, {
      includeBotsByDefault: false,
      json: true,
    }),
    { query: "bots", range: { ...WEEK, includeBots: true }, format: "json", out: "b.json" },
  );
});

Deno.test("parseExportRequest() refuses an unknown query with unknown_query naming the queries", () => {
  const err = refusal(() => parseExportRequest({ ...WEEK, query: "pages" }, plain));
  assert.equal(err.code, "unknown_query");
  assert.equal(err.message, 'no query named "pages"');
  assert.match(err.hint, /entry_pages/);
});

Deno.test("parseExportRequest() says every problem with the days and flags at once, as usage", () => {
  const err = refusal(() => parseExportRequest({ from: "2026-02-30", to: "2026-3-07" }, plain));
  assert.equal(err.code, "usage");
  assert.equal(
    err.message,
    "analytics export: --query is required; " +
      '--from must be a UTC day YYYY-MM-DD, got "2026-02-30"; ' +
      '--to must be a UTC day YYYY-MM-DD, got "2026-3-07"',
  );
  assert.match(err.hint, /--from 2026-03-01 --to 2026-03-07/);
  assert.match(
    refusal(() => parseExportRequest({ query: "views" }, plain)).message,
    /--from is required \(YYYY-MM-DD\); --to is required/,
  );
  assert.match(
    refusal(() =>
      parseExportRequest({ from: "2026-03-07", to: "2026-03-01", query: "views" }, plain)
    )
      .message,
    /the range is inverted/,
  );
  const json = { includeBotsByDefault: false, json: true };
  assert.match(
    refusal(() => parseExportRequest({ ...WEEK, query: "views", format: "csv" }, json)).message,
    /--json prints JSON on stdout/,
  );
});

Deno.test("exportQuery() writes what the API answers: its rows as CSV, its result as JSON", async () => {
  using source = await openLocalTable();
  await insertRows(source, PANEL_ROWS);
  const range = { ...WEEK, includeBots: false };
  const csv = await exportQuery(source, { query: "campaigns", range, format: "csv" });
  assert.equal(
    csv.text,
    '"utm_source","utm_medium","utm_campaign","views"\r\n' +
      '"newsletter","email","march",2\r\n' +
      '"google",,,1\r\n' +
      '"mastodon","social","launch",1\r\n',
  );
  assert.equal(csv.rows, 3);
  const json = await exportQuery(source, { query: "entry_pages", range, format: "json" });
  const api = await runNamedQuery(source, "entry_pages", range);
  assert.deepEqual(JSON.parse(json.text), api);
  assert.equal(JSON.parse(json.text).change, 1.5);
  assert.equal(
    (await exportQuery(source, { query: "devices", range, format: "csv" })).text,
    toCsv(NAMED_QUERIES.devices.columns, (await runNamedQuery(source, "devices", range)).rows),
  );
});
