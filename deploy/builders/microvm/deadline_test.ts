import assert from "node:assert/strict";
import { FixedClock } from "@org/shared";
import { nextPollDelay, pastDeadline, waitDeadline } from "./deadline.ts";
import { withRetry } from "../../aws/retry.ts";
import { isGatewayError, LAUNCH_RETRY } from "./launch_retry.ts";
import { keepAliveIntervalMs } from "./keep_alive.ts";

Deno.test("waitDeadline() is maxDurationSeconds + 60 s after launch", () => {
  assert.equal(waitDeadline(1_000_000, 1800), 1_000_000 + 1_860_000);
  assert.equal(waitDeadline(0, 1), 61_000);
});

Deno.test("pastDeadline() counts the deadline itself as passed", () => {
  const deadline = waitDeadline(0, 30);
  assert.equal(pastDeadline(89_999, deadline), false);
  assert.equal(pastDeadline(90_000, deadline), true);
});

Deno.test("nextPollDelay() cuts the last poll short at the deadline and never goes negative", () => {
  assert.equal(nextPollDelay(0, 90_000, 2000), 2000);
  assert.equal(nextPollDelay(89_500, 90_000, 2000), 500);
  assert.equal(nextPollDelay(95_000, 90_000, 2000), 0);
});

Deno.test("keepAliveIntervalMs() pings at half the idle allowance, within 1..60 s", () => {
  assert.equal(keepAliveIntervalMs(300), 60_000);
  assert.equal(keepAliveIntervalMs(30), 15_000);
  assert.equal(keepAliveIntervalMs(1), 1000);
});

const gateway = (status: number) =>
  Object.assign(new Error(`HTTP ${status}`), {
    $metadata: { httpStatusCode: status },
  });

Deno.test("the launch policy retries 502/503/504 and returns the first success", async () => {
  const clock = new FixedClock(0);
  const errors = [gateway(502), gateway(503), gateway(504)];
  let calls = 0;
  const out = await withRetry(() => {
    calls++;
    const e = errors.shift();
    return e ? Promise.reject(e) : Promise.resolve("vm");
  }, {
    ...LAUNCH_RETRY,
    clock,
    sleep: (ms) => Promise.resolve(clock.advance(ms)),
    random: () => 0,
  });
  assert.equal(out, "vm");
  assert.equal(calls, 4);
  assert.equal(clock.now(), 1000 + 2000 + 4000);
});

Deno.test("the launch policy gives up once two minutes of retries are spent", async () => {
  const clock = new FixedClock(0);
  let calls = 0;
  await assert.rejects(
    withRetry(() => {
      calls++;
      return Promise.reject(gateway(503));
    }, { ...LAUNCH_RETRY, clock, sleep: (ms) => Promise.resolve(clock.advance(ms)) }),
    /HTTP 503/,
  );
  assert.ok(clock.now() <= 120_000, `waited ${clock.now()} ms`);
  assert.ok(clock.now() > 100_000, `gave up early at ${clock.now()} ms`);
  assert.ok(calls > 5);
});

Deno.test("the launch policy does not retry a client error", async () => {
  const clock = new FixedClock(0);
  let calls = 0;
  await assert.rejects(
    withRetry(() => {
      calls++;
      return Promise.reject(gateway(400));
    }, { ...LAUNCH_RETRY, clock, sleep: () => Promise.resolve() }),
  );
  assert.equal(calls, 1);
  assert.equal(isGatewayError(gateway(500)), false);
});
