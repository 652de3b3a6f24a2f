import assert from "node:assert/strict";
import { insertRows } from "./insert_rows.ts";
import { openLocalTable } from "./local_table.ts";
import { tableRowCount } from "./table_rows.ts";
import { KNOWN_ROWS } from "./_test_rows.ts";

Deno.test("tableRowCount() counts every row up to today, bots included", async () => {
  const count = await tableRowCount(async () => {
    const source = await openLocalTable();
    await insertRows(source, KNOWN_ROWS);
    return source;
  }, "2026-02-02");
  assert.deepEqual(count, { count: 10 });
});

Deno.test("tableRowCount() says why when the engine cannot open the table", async () => {
  const count = await tableRowCount(
    () => Promise.reject(new Error('the DuckDB extension "iceberg" is not installed')),
    "2026-02-02",
  );
  assert.deepEqual(count, {
    count: null,
    note: 'not available: the DuckDB extension "iceberg" is not installed',
  });
});
