import assert from "node:assert/strict";
import { backfillProgress } from "./progress.ts";

Deno.test("backfillProgress() fills the bar by days done", () => {
  assert.equal(backfillProgress(0, 4, 8), "backfill [--------] 0/4 days");
  assert.equal(backfillProgress(1, 4, 8), "backfill [##------] 1/4 days");
  assert.equal(backfillProgress(4, 4, 8), "backfill [########] 4/4 days");
});
