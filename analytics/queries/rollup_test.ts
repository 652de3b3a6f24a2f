import assert from "node:assert/strict";
import { insertRows } from "./insert_rows.ts";
import { openLocalTable } from "./local_table.ts";
import { rolledScans, runNamedQuery } from "./named_queries.ts";
import {
  attachRollup,
  lastClosedDay,
  ROLLUP_CLOSE_AFTER_HOURS,
  rollUpRecentDays,
} from "./rollup.ts";
import type { QueryRange } from "./range.ts";
import { testRow } from "./_test_rows.ts";

Deno.test("lastClosedDay(): a day closes two hours after its end", () => {
  assert.equal(ROLLUP_CLOSE_AFTER_HOURS, 2);
  assert.equal(lastClosedDay(Date.parse("2026-03-04T01:59:59Z")), "2026-03-02");
  assert.equal(lastClosedDay(Date.parse("2026-03-04T02:00:00Z")), "2026-03-03");
  assert.equal(lastClosedDay(Date.parse("2026-03-01T12:00:00Z")), "2026-02-28");
});

const DAYS = ["2026-03-01", "2026-03-02", "2026-03-03"];
const WEEK: QueryRange = { from: "2026-03-01", to: "2026-03-07", includeBots: false };
const rows = DAYS.flatMap((day, i) =>
  Array.from(
    { length: i + 2 },
    (_, k) => testRow(`${day}T1${k}:00:00.000Z`, { visitor_key: `v${k}`, uri: `/p${k}` }),
  )
);

async function rolledTable(now: number, path = ":memory:") {
  const table = await openLocalTable();
  await insertRows(table, rows);
  const rollup = await attachRollup(table, { path, scans: rolledScans(), now: () => now });
  return { table, rollup, source: { ...table, rollup } };
}

Deno.test("refresh() rolls up each closed day once, and leaves open days alone", async () => {
  // 2026-03-03 ends at midnight; at 01:00 it is not closed yet.
  const { table, rollup } = await rolledTable(Date.parse("2026-03-04T01:00:00Z"));
  using _ = table;
  assert.deepEqual(await rollup.refresh(WEEK), {
    rolled: ["2026-03-01", "2026-03-02"],
    dropped: [],
    checked: 2,
  });
  assert.deepEqual(await rollup.refresh(WEEK), { rolled: [], dropped: [], checked: 2 });
  const stored = await table.connection.runAndReadAll(
    `SELECT count(DISTINCT rolled_day) AS days FROM ${rollup.table("page_views")}`,
  );
  assert.equal(stored.getRowObjectsJS()[0]!.days, 2n);
});

Deno.test("a closed day's answer comes from the roll-up, not from the raw rows", async () => {
  const { table, rollup, source } = await rolledTable(Date.parse("2026-03-10T00:00:00Z"));
  using _ = table;
  const before = await runNamedQuery(source, "views", WEEK);
  assert.equal(before.total, 9);
  // Doctoring the rolled rows (the fingerprint unchanged) shows that they are what is read.
  await table.connection.run(
    `UPDATE ${rollup.table("page_views")} SET n = n + 100 WHERE rolled_day = DATE '2026-03-01'`,
  );
  const doctored = await runNamedQuery(source, "views", WEEK);
  // The day's two hours of views, each group 100 more.
  assert.equal(doctored.rows[0]!.views, 202);
  assert.equal((await runNamedQuery(table, "views", WEEK)).rows[0]!.views, 2);
});

Deno.test("a late record in a closed day rolls that day up again, and the answer follows", async () => {
  const { table, rollup, source } = await rolledTable(Date.parse("2026-03-10T00:00:00Z"));
  using _ = table;
  await rollup.refresh(WEEK);
  assert.equal((await runNamedQuery(source, "unique_visitors", WEEK)).total, 9);
  await insertRows(table, [testRow("2026-03-02T23:59:00.000Z", { visitor_key: "late" })]);
  assert.deepEqual(await rollup.refresh(WEEK), {
    rolled: ["2026-03-02"],
    dropped: [],
    checked: 3,
  });
  for (const source_ of [source, table]) {
    const visitors = await runNamedQuery(source_, "unique_visitors", WEEK);
    assert.equal(visitors.total, 10);
    assert.deepEqual(visitors.rows[1], { day: "2026-03-02", visitors: 4 });
  }
  // Rows deleted from a closed day (the fingerprint also counts them).
  await table.connection.run(`DELETE FROM ${table.relation} WHERE day = DATE '2026-03-01'`);
  assert.deepEqual(await rollup.refresh(WEEK), {
    rolled: [],
    dropped: ["2026-03-01"],
    checked: 2,
  });
  assert.equal((await runNamedQuery(source, "views", WEEK)).total, 8);
});

Deno.test("a roll-up file written by other scans' SQL is emptied, not read", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/rollup.duckdb`;
    const now = Date.parse("2026-03-10T00:00:00Z");
    {
      const { table, rollup } = await rolledTable(now, path);
      using _ = table;
      assert.equal((await rollup.refresh(WEEK)).rolled.length, 3);
    }
    {
      // The same file and scans: nothing to roll up again.
      const { table, rollup } = await rolledTable(now, path);
      using _ = table;
      assert.equal((await rollup.refresh(WEEK)).rolled.length, 0);
    }
    const table = await openLocalTable();
    using _ = table;
    await insertRows(table, rows);
    // One query fewer reading the requests scan: its grouped rows differ.
    const scans = rolledScans().map((s) =>
      s.name === "requests" ? { ...s, members: s.members.slice(1) } : s
    );
    const rollup = await attachRollup(table, { path, scans, now: () => now });
    assert.equal((await rollup.refresh(WEEK)).rolled.length, 3);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("rollUpRecentDays(): closed days newest first, one refresh a day, until told to stop", async () => {
  const { table, rollup } = await rolledTable(Date.parse("2026-03-10T12:00:00Z"));
  using _ = table;
  let asked = 0;
  // Stops before the third day back (2026-03-07): 03-09 and 03-08 hold no rows.
  const rolled = await rollUpRecentDays(
    rollup,
    Date.parse("2026-03-10T12:00:00Z"),
    30,
    () => ++asked > 2,
  );
  assert.deepEqual([rolled, asked], [[], 3]);
  // Every day back to 2026-03-01, newest first: the three with rows.
  assert.deepEqual(
    await rollUpRecentDays(rollup, Date.parse("2026-03-10T12:00:00Z"), 9, () => false),
    ["2026-03-03", "2026-03-02", "2026-03-01"],
  );
});

Deno.test("stale(): the closed days a refresh would roll up or drop; rollUpRecentDays() refreshes only those", async () => {
  const now = Date.parse("2026-03-10T12:00:00Z");
  const { table, rollup } = await rolledTable(now);
  using _ = table;
  assert.deepEqual(await rollup.stale(WEEK), DAYS);
  await rollup.refresh(WEEK);
  assert.deepEqual(await rollup.stale(WEEK), []);
  await insertRows(table, [testRow("2026-03-02T23:59:00.000Z", { visitor_key: "late" })]);
  await table.connection.run(`DELETE FROM ${table.relation} WHERE day = DATE '2026-03-01'`);
  assert.deepEqual(await rollup.stale(WEEK), ["2026-03-01", "2026-03-02"]);
  const refreshed: string[] = [];
  const counted = {
    ...rollup,
    refresh: (days: { from: string; to: string }) => {
      refreshed.push(days.from);
      return rollup.refresh(days);
    },
  };
  assert.deepEqual(await rollUpRecentDays(counted, now, 9, () => false), ["2026-03-02"]);
  assert.deepEqual(refreshed, ["2026-03-02", "2026-03-01"]);
  assert.deepEqual(await rollup.stale(WEEK), []);
});

Deno.test("with snapshots, fingerprints are read again only once the table's snapshot changed", async () => {
  const table = await openLocalTable();
  using _ = table;
  await insertRows(table, rows);
  let snapshot = "1";
  const source = { ...table, snapshot: () => Promise.resolve(snapshot) };
  const rollup = await attachRollup(source, {
    path: ":memory:",
    scans: rolledScans(),
    now: () => Date.parse("2026-03-10T00:00:00Z"),
  });
  assert.deepEqual((await rollup.refresh(WEEK)).checked, 3);
  assert.deepEqual(await rollup.refresh(WEEK), { rolled: [], dropped: [], checked: 0 });
  // Other days are checked on their own.
  assert.equal((await rollup.refresh({ from: "2026-03-02", to: "2026-03-03" })).checked, 2);
  // A late record is a new snapshot (every Iceberg commit is one): found and rolled up.
  await insertRows(table, [testRow("2026-03-02T23:59:00.000Z", { visitor_key: "late" })]);
  snapshot = "2";
  assert.deepEqual(await rollup.refresh(WEEK), {
    rolled: ["2026-03-02"],
    dropped: [],
    checked: 3,
  });
  // A snapshot that cannot be read is unknown: the fingerprints are read every time.
  const failing = {
    ...table,
    snapshot: () => Promise.reject(new Error("no metadata")),
  };
  const again = await attachRollup(failing, {
    path: ":memory:",
    alias: "rollup_2",
    scans: rolledScans(),
    now: () => Date.parse("2026-03-10T00:00:00Z"),
  });
  await again.refresh(WEEK);
  assert.equal((await again.refresh(WEEK)).checked, 3);
});

Deno.test("a roll-up that fails to read gives way to the table: the same answer, and a warning", async () => {
  const { table, rollup } = await rolledTable(Date.parse("2026-03-10T00:00:00Z"));
  using _ = table;
  const expected = await runNamedQuery(table, "views", WEEK);
  const failures: unknown[] = [];
  // A roll-up whose scan table is gone, as a broken file would read.
  const broken = { ...rollup, table: () => `"rollup"."no_such_scan"` };
  const source = { ...table, rollup: broken, rollupFailed: (err: unknown) => failures.push(err) };
  assert.deepEqual(await runNamedQuery(source, "views", WEEK), expected);
  assert.ok(failures.length >= 1);
  assert.match(String(failures[0]), /no_such_scan/);
});
