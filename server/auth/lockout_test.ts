import assert from "node:assert/strict";
import { afterFailure, forgetAt, lockedForMs } from "./lockout.ts";
import type { LockoutState } from "../store/store.ts";

const policy = { threshold: 3, windowMs: 60_000 };

Deno.test("afterFailure() locks the peer out at the threshold for a whole window", () => {
  let s: LockoutState | undefined;
  s = afterFailure(s, 0, policy);
  s = afterFailure(s, 1000, policy);
  assert.equal(lockedForMs(s, 1000), 0);
  s = afterFailure(s, 2000, policy);
  assert.equal(lockedForMs(s, 2000), 60_000);
  assert.equal(lockedForMs(s, 61_999), 1);
  assert.equal(lockedForMs(s, 62_000), 0);
  assert.equal(forgetAt(s, policy), 62_000);
});

Deno.test("afterFailure() starts counting afresh once the window has passed", () => {
  let s: LockoutState | undefined;
  s = afterFailure(s, 0, policy);
  s = afterFailure(s, 1000, policy);
  s = afterFailure(s, 60_000, policy);
  assert.deepEqual(s, { failures: 1, window_start: 60_000 });
  assert.equal(lockedForMs(s, 60_000), 0);
});
