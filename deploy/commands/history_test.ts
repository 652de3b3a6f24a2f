import assert from "node:assert/strict";
import type { BuildRecord } from "../build_records/record.ts";
import { historyTable } from "./history.ts";

function record(id: string, startedAt: string): BuildRecord {
  return {
    version: 1,
    id,
    status: "done",
    startedAt,
    finishedAt: startedAt,
    durationMs: 1200,
    source: `build/${id}.zip`,
    logGroup: "/aws/microvms/production-blog-builder",
    logStream: id,
  };
}

Deno.test("historyTable() marks the build the live site serves, which after a rollback is not the newest", () => {
  const rows = historyTable(
    [record("bbb222", "2026-02-02T10:00:00.000Z"), record("aaa111", "2026-02-01T10:00:00.000Z")],
    "aaa111",
  );
  assert.deepEqual(rows, [
    "ID      STATUS       FINISHED              DURATION",
    "bbb222  done         2026-02-02 10:00:00Z  1 s",
    "aaa111  done (live)  2026-02-01 10:00:00Z  1 s",
  ]);
});
