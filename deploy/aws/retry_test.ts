import assert from "node:assert/strict";
import { FixedClock } from "@org/shared";
import { abortable, backoffMs, isRetryable, withRetry } from "./retry.ts";

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
  }, { sleep: (ms) => Promise.resolve(void waits.push(ms)), random: () => 0 });
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

Deno.test("withRetry() jitters each wait down to no less than half the backoff", async () => {
  const waits: number[] = [];
  const draws = [0.999, 0.5, 0];
  await assert.rejects(
    withRetry(() => Promise.reject(s3Error("SlowDown", 503)), {
      attempts: 4,
      sleep: (ms) => Promise.resolve(void waits.push(ms)),
      random: () => draws.shift()!,
    }),
  );
  assert.deepEqual(waits, [50, 150, 400]);
});

Deno.test("withRetry() retries what its own predicate accepts, and only that", async () => {
  let calls = 0;
  const conflict = Object.assign(new Error("busy"), { name: "ConflictException" });
  await assert.rejects(
    withRetry(() => {
      calls++;
      return Promise.reject(calls < 3 ? conflict : s3Error("SlowDown", 503));
    }, {
      isRetryable: (err) => (err as Error).name === "ConflictException",
      sleep: () => Promise.resolve(),
    }),
    { name: "SlowDown" },
  );
  assert.equal(calls, 3);
});

Deno.test("withRetry() makes no retry whose wait would end past the deadline", async () => {
  const clock = new FixedClock(0);
  const waits: number[] = [];
  let calls = 0;
  await assert.rejects(
    withRetry(() => {
      calls++;
      return Promise.reject(s3Error("SlowDown", 503));
    }, {
      attempts: Infinity,
      baseDelayMs: 1000,
      maxDelayMs: 1000,
      deadlineMs: 3500,
      clock,
      random: () => 0,
      sleep: (ms) => {
        clock.advance(ms);
        return Promise.resolve(void waits.push(clock.now()));
      },
    }),
    { name: "SlowDown" },
  );
  assert.deepEqual(waits, [1000, 2000, 3000]);
  assert.equal(calls, 4);
});

Deno.test("withRetry() stops waiting once its signal is aborted", async () => {
  const abort = new AbortController();
  let calls = 0;
  await assert.rejects(
    withRetry(() => {
      calls++;
      return Promise.reject(s3Error("SlowDown", 503));
    }, {
      signal: abort.signal,
      sleep: () => Promise.resolve(abort.abort()),
    }),
    { name: "SlowDown" },
  );
  assert.equal(calls, 1, "no attempt after the abort");
});

Deno.test("withRetry() tells onRetry the failed attempt and the wait", async () => {
  const seen: string[] = [];
  let calls = 0;
  await withRetry(
    () => ++calls < 3 ? Promise.reject(s3Error("SlowDown", 503)) : Promise.resolve(),
    {
      random: () => 0,
      sleep: () => Promise.resolve(),
      onRetry: (attempt, ms) => void seen.push(`${attempt}:${ms}`),
    },
  );
  assert.deepEqual(seen, ["1:100", "2:200"]);
});

Deno.test("backoffMs() is capped", () => {
  assert.equal(backoffMs(20, { baseDelayMs: 100, maxDelayMs: 5000 }), 5000);
});

Deno.test("withRetry() stops at once when aborted during a wait, with the last error, and makes no more attempts", async () => {
  const controller = new AbortController();
  const slowDown = Object.assign(new Error("SlowDown"), { $metadata: { httpStatusCode: 503 } });
  let calls = 0;
  const never = () => new Promise<void>(() => {});
  const run = withRetry(() => {
    calls++;
    return Promise.reject(slowDown);
  }, { sleep: never, signal: controller.signal, attempts: 6 });
  // The first wait never ends by itself: only the abort can end it.
  await Promise.resolve();
  controller.abort("SIGINT");
  await assert.rejects(run, (err) => err === slowDown);
  assert.equal(calls, 1, "no attempt after the abort");
});

Deno.test("abortable() hands the retry signal to the SDK's send", () => {
  const controller = new AbortController();
  assert.deepEqual(abortable({ signal: controller.signal }), { abortSignal: controller.signal });
  assert.deepEqual(abortable({}), {});
  assert.deepEqual(abortable(undefined), {});
});
