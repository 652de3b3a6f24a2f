import assert from "node:assert/strict";
import { join } from "node:path";
import { resolveAnalyticsConfig } from "../section.ts";
import { insertRows } from "./insert_rows.ts";
import { openLocalTable } from "./local_table.ts";
import { runNamedQuery } from "./named_queries.ts";
import { rollupPath, withRollup } from "./site_rollup.ts";
import { testRow } from "./_test_rows.ts";

const resolved = resolveAnalyticsConfig(undefined, { siteName: "blog", env: "production" });
assert.ok("config" in resolved);
const config = resolved.config;

Deno.test("rollupPath(): one file per table under the deploy task's cache, in memory without HOME", () => {
  assert.equal(
    rollupPath({ HOME: "/home/me/" }, config),
    "/home/me/.cache/org-deploy/analytics/production-blog-analytics.web.page_views.duckdb",
  );
  assert.equal(rollupPath({}, config), ":memory:");
});

Deno.test("withRollup(): the file is created in its folder and kept for the next start", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = rollupPath({ HOME: dir }, config);
    const now = () => Date.parse("2026-03-10T00:00:00Z");
    const range = { from: "2026-03-01", to: "2026-03-07", includeBots: false };
    for (const rolled of [["2026-03-02"], []]) {
      const table = await openLocalTable();
      await insertRows(table, [testRow("2026-03-02T10:00:00.000Z")]);
      using source = await withRollup(table, path, now, (d) => Deno.mkdir(d, { recursive: true }));
      assert.deepEqual((await source.rollup!.refresh(range)).rolled, rolled);
      assert.equal((await runNamedQuery(source, "views", range)).total, 1);
    }
    assert.ok((await Deno.stat(join(dir, ".cache", "org-deploy", "analytics"))).isDirectory);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
