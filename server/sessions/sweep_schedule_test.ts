import assert from "node:assert/strict";
import { createMemoryLogger, FixedClock } from "@org/shared";
import { createKvStore } from "../store/kv_store.ts";
import type { Scheduler } from "../scheduler.ts";
import { scheduleSessionSweep, SWEEP_INTERVAL_MS } from "./sweep_schedule.ts";

/** A scheduler whose runs happen when the test says so. */
function manualScheduler(): Scheduler & {
  tick(): void;
  period: number | undefined;
  active: boolean;
} {
  const s = {
    task: undefined as (() => void) | undefined,
    period: undefined as number | undefined,
    active: false,
    every(ms: number, task: () => void) {
      s.period = ms;
      s.task = task;
      s.active = true;
      return () => {
        s.active = false;
      };
    },
    tick() {
      if (s.active) s.task?.();
    },
  };
  return s;
}

Deno.test("scheduleSessionSweep() sweeps hourly, logs the count at info, and stops on stop()", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new FixedClock(Date.UTC(2030, 0, 1));
  const store = createKvStore(kv, clock);
  const { log, lines } = createMemoryLogger();
  const f = {
    id: "ses_a",
    user_id: "usr_x",
    created_at: clock.now(),
    expires_at: clock.now() + 1000,
    revoked: false,
  };
  await store.sessions.create(f, {
    hash: "h",
    family_id: f.id,
    user_id: f.user_id,
    issued_at: f.created_at,
    expires_at: f.expires_at,
  });
  const scheduler = manualScheduler();
  const sweep = scheduleSessionSweep({ store, clock, log }, scheduler);
  assert.equal(scheduler.period, SWEEP_INTERVAL_MS);
  assert.equal(SWEEP_INTERVAL_MS, 3_600_000);
  clock.advance(1000);
  scheduler.tick();
  scheduler.tick(); // overlapping tick: skipped while the first run is in progress
  await sweep.stop();
  const swept = lines.filter((l) => l.msg === "expired sessions swept");
  assert.deepEqual(swept.map((l) => [l.level, l.deleted]), [["info", 1]]);
  assert.equal((await store.stats.read()).sessions, 0);
  assert.equal(scheduler.active, false);
});
