import assert from "node:assert/strict";
import { DELIVERY_WINDOW_MS, MAX_RETRY_MS, nextAttemptAt } from "./retry_schedule.ts";

Deno.test("nextAttemptAt() doubles the wait after each failure, up to an hour", () => {
  const waits = [1, 2, 3, 4, 12, 20].map((attempts) =>
    nextAttemptAt({ created_at: 0, attempts }, 0, 0)
  );
  assert.deepEqual(waits, [5_000, 10_000, 20_000, 40_000, MAX_RETRY_MS, MAX_RETRY_MS]);
});

Deno.test("nextAttemptAt() cuts the wait by up to half at random", () => {
  assert.equal(nextAttemptAt({ created_at: 0, attempts: 2 }, 100, 0.5), 100 + 7_500);
  assert.equal(nextAttemptAt({ created_at: 0, attempts: 2 }, 100, 0.999_999), 100 + 5_000);
});

Deno.test("nextAttemptAt() gives up once the next attempt would be past 24 hours", () => {
  const now = DELIVERY_WINDOW_MS - MAX_RETRY_MS;
  assert.equal(nextAttemptAt({ created_at: 0, attempts: 30 }, now, 0), DELIVERY_WINDOW_MS);
  assert.equal(nextAttemptAt({ created_at: 0, attempts: 30 }, now + 1, 0), undefined);
});
