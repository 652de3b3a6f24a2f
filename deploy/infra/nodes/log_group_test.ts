import assert from "node:assert/strict";
import { logRetentionDays } from "./log_group.ts";

Deno.test("logRetentionDays() rounds up to a retention CloudWatch accepts", () => {
  assert.equal(logRetentionDays(90), 90);
  assert.equal(logRetentionDays(100), 120);
  assert.equal(logRetentionDays(2), 3);
  assert.equal(logRetentionDays(99999), 3653);
});
