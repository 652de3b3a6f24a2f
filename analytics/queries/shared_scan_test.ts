import assert from "node:assert/strict";
import { createScanSharing, groupedSql, groupingId, memberSql } from "./shared_scan.ts";
import type { NamedMember, SharedScan } from "./shared_scan.ts";

Deno.test("groupingId() sets a bit for each column outside the set, the first column highest", () => {
  assert.equal(groupingId(["a", "b", "c"], ["a"]), 0b011);
  assert.equal(groupingId(["a", "b", "c"], ["b", "c"]), 0b100);
  assert.equal(groupingId(["a", "b", "c"], ["a", "b", "c"]), 0);
});

const scan: SharedScan = {
  columns: ["a", "b", "c"],
  rows: (relation, _range, members) => `SELECT a, b, c FROM ${relation} -- ${members.join()}`,
};
const range = { from: "2026-03-01", to: "2026-03-07", includeBots: false };
const finish = (grouped: string) => `SELECT * FROM ${grouped}`;
const first: NamedMember<"s"> = { name: "first", member: { scan: "s", groupBy: ["c"], finish } };
const second: NamedMember<"s"> = { name: "second", member: { scan: "s", groupBy: ["a"], finish } };

Deno.test("groupedSql() groups by each member's set once, naming only the columns they use", () => {
  assert.equal(
    groupedSql(scan, "t", range, [first, second, { ...first, name: "again" }]),
    "SELECT GROUPING_ID(a, c) AS grouping_id, a, c, count(*) AS n FROM (SELECT a, b, c FROM t " +
      "-- first,second,again) GROUP BY GROUPING SETS ((c), (a))",
  );
  // The member's rows are those of its set, whose id depends on the columns named.
  assert.equal(
    memberSql(scan, first.member, [first, second], "g", range),
    "SELECT * FROM (SELECT * FROM g WHERE grouping_id = 2)",
  );
  assert.equal(
    memberSql(scan, first.member, [first], "g", range),
    "SELECT * FROM (SELECT * FROM g WHERE grouping_id = 0)",
  );
});

Deno.test("createScanSharing() shares a run only while it is in flight, per source and key", async () => {
  const sharing = createScanSharing();
  const a = {};
  const b = {};
  let runs = 0;
  let release = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  const run = async () => {
    runs++;
    await held;
    return runs;
  };
  const together = [
    sharing.share(a, "k", run),
    sharing.share(a, "k", run),
    sharing.share(a, "other", run),
    sharing.share(b, "k", run),
  ];
  assert.equal(runs, 3);
  release();
  await Promise.all(together);
  assert.equal(together[0], together[1]);
  // Settled: the next asks run again, so nothing outlives the requests that shared it.
  await sharing.share(a, "k", run);
  assert.equal(runs, 4);
});

Deno.test("createScanSharing() forgets a failed run, so the next ask tries again", async () => {
  const sharing = createScanSharing();
  const source = {};
  await assert.rejects(sharing.share(source, "k", () => Promise.reject(new Error("down"))));
  assert.equal(await sharing.share(source, "k", () => Promise.resolve(1)), 1);
});
