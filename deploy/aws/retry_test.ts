import assert from "node:assert/strict";
import { backoffMs, forEachLimited, isRetryable, withRetry } from "./retry.ts";

const s3Error = (name: string, status: number) =>
  Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });

Deno.test("isRetryable() retries 503 SlowDown and other 5xx but not 4xx or 501", () => {
  assert.equal(isRetryable(s3Error("SlowDown", 503)), true);
  assert.equal(isRetryable(s3Error("InternalError", 500)), true);
  assert.equal(isRetryable(s3Error("TooManyRequests", 429)), true);
  assert.equal(isRetryable(s3Error("AccessDenied", 403)), false);
  assert.equal(isRetryable(s3Error("NotImplemented", 501)), false, "a missing API stays missing");
  assert.equal(isRetryable(s3Error("NoSuchBucket", 404)), false);
  assert.equal(isRetryable(Object.assign(new Error("x"), { code: "ECONNRESET" })), true);
  assert.equal(isRetryable("boom"), false);
});

Deno.test("withRetry() backs off exponentially through SlowDown and then succeeds", async () => {
  const waits: number[] = [];
  let calls = 0;
  const result = await withRetry(() => {
    calls++;
    return calls < 4 ? Promise.reject(s3Error("SlowDown", 503)) : Promise.resolve("ok");
  }, { sleep: (ms) => Promise.resolve(void waits.push(ms)) });
  assert.equal(result, "ok");
  assert.deepEqual(waits, [100, 200, 400]);
});

Deno.test("withRetry() gives up after the last attempt with its error", async () => {
  let calls = 0;
  await assert.rejects(
    withRetry(() => {
      calls++;
      return Promise.reject(s3Error("SlowDown", 503));
    }, { attempts: 3, sleep: () => Promise.resolve() }),
    { name: "SlowDown" },
  );
  assert.equal(calls, 3);
});

Deno.test("withRetry() does not retry a client error", async () => {
  let calls = 0;
  await assert.rejects(
    withRetry(() => {
      calls++;
      return Promise.reject(s3Error("AccessDenied", 403));
    }, { sleep: () => Promise.resolve() }),
    { name: "AccessDenied" },
  );
  assert.equal(calls, 1);
});

Deno.test("backoffMs() is capped", () => {
  assert.equal(backoffMs(20, { baseDelayMs: 100, maxDelayMs: 5000 }), 5000);
});

Deno.test("forEachLimited() never runs more than the limit at once", async () => {
  let running = 0;
  let peak = 0;
  const seen: number[] = [];
  await forEachLimited([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
    running++;
    peak = Math.max(peak, running);
    await Promise.resolve();
    seen.push(n);
    running--;
  });
  assert.equal(peak, 3);
  assert.deepEqual(seen.sort(), [1, 2, 3, 4, 5, 6, 7]);
});

Deno.test("forEachLimited() rejects with the first failure", async () => {
  await assert.rejects(
    forEachLimited(
      [1, 2, 3],
      2,
      (n) => n === 2 ? Promise.reject(new Error("two")) : Promise.resolve(),
    ),
    { message: "two" },
  );
});
