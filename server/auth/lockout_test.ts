import assert from "node:assert/strict";
import {
  afterFailure,
  forgetAt,
  giveBack,
  lockedForMs,
  retryAfterSeconds,
  takeAttempt,
} from "./lockout.ts";
import type { LockoutState } from "../store/lockout.ts";

const policy = { threshold: 3, windowMs: 60_000 };

/** One attempt taken and failed at `now`. */
function fail(s: LockoutState | undefined, now: number): LockoutState {
  const taken = takeAttempt(s, now, policy);
  assert.ok(taken.granted);
  return afterFailure(taken.state, now, policy);
}

Deno.test("afterFailure() locks the peer out at the threshold for a whole window", () => {
  let s: LockoutState | undefined;
  s = fail(s, 0);
  s = fail(s, 1000);
  assert.equal(lockedForMs(s, 1000), 0);
  s = fail(s, 2000);
  assert.equal(lockedForMs(s, 2000), 60_000);
  assert.equal(lockedForMs(s, 61_999), 1);
  assert.equal(lockedForMs(s, 62_000), 0);
  assert.equal(forgetAt(s, policy), 62_000);
  assert.equal(takeAttempt(s, 61_999, policy).granted, false);
  assert.equal(takeAttempt(s, 62_000, policy).granted, true);
});

Deno.test("afterFailure() starts counting afresh once the window has passed", () => {
  let s: LockoutState | undefined;
  s = fail(s, 0);
  s = fail(s, 1000);
  s = fail(s, 60_000);
  assert.deepEqual(s, { attempts: 1, failures: 1, window_start: 60_000 });
  assert.equal(lockedForMs(s, 60_000), 0);
});

Deno.test("takeAttempt() grants at most `threshold` attempts per window while they are being evaluated", () => {
  let s: LockoutState | undefined;
  const granted: boolean[] = [];
  for (let i = 0; i < 10; i++) {
    const t = takeAttempt(s, 5000, policy);
    granted.push(t.granted);
    s = t.state;
  }
  assert.deepEqual(granted.filter(Boolean).length, 3);
  // Refused until the window of the spent budget ends.
  assert.equal(retryAfterSeconds(s!, 5000, policy), 60);
  assert.equal(takeAttempt(s, 65_000, policy).granted, true);
});

Deno.test("giveBack() returns a successful attempt to the budget, only within its window", () => {
  const first = takeAttempt(undefined, 0, policy);
  const second = takeAttempt(first.state, 10, policy);
  const back = giveBack(second.state, first.state.window_start);
  assert.equal(back.attempts, 1);
  assert.equal(takeAttempt(back, 20, policy).state.attempts, 2);
  // The window has since restarted: the new window's count is left alone.
  const later = takeAttempt(back, 70_000, policy).state;
  assert.deepEqual(giveBack(later, first.state.window_start), later);
});

Deno.test("takeAttempt() reads records written before attempts were counted (failures only)", () => {
  const old: LockoutState = { failures: 2, window_start: 0 };
  const t = takeAttempt(old, 1000, policy);
  assert.equal(t.granted, true);
  assert.equal(takeAttempt(t.state, 1000, policy).granted, false);
});
