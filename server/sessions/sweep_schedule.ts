/**
 * The periodic sweep of the store's housekeeping a serving process runs on its own, so the
 * live-session count stays exact (and, on PostgreSQL, ended records go) without an operator
 * cron job.
 *
 * @module
 */
import type { DepsWith } from "../deps.ts";
import { type ScheduledTask, scheduleExclusive, type Scheduler } from "../scheduler.ts";

/** How often `serve` sweeps expired sessions. */
export const SWEEP_INTERVAL_MS = 3_600_000;

/** A scheduled sweep. */
export type ScheduledSweep = ScheduledTask;

/**
 * Schedules `store.housekeeping.sweepExpired` every {@linkcode SWEEP_INTERVAL_MS} (one bounded batch
 * per run; a run never overlaps the previous one). Each run logs how many sessions it
 * deleted at info; a failure is logged as a warning and the next run tries again.
 *
 * @param deps store, clock and logger
 * @param scheduler what repeats the runs
 * @param intervalMs the period (default {@linkcode SWEEP_INTERVAL_MS})
 * @returns a handle to stop it on shutdown
 *
 * @example
 * ```ts
 * import type { ServiceDeps } from "../deps.ts";
 * import { intervalScheduler } from "../scheduler.ts";
 *
 * async function runUntilShutdown(deps: ServiceDeps, shutdown: Promise<void>) {
 *   const sweep = scheduleSessionSweep(deps, intervalScheduler);
 *   await shutdown;
 *   await sweep.stop();
 * }
 * ```
 */
export function scheduleSessionSweep(
  deps: DepsWith<"clock" | "log", "housekeeping">,
  scheduler: Scheduler,
  intervalMs: number = SWEEP_INTERVAL_MS,
): ScheduledSweep {
  return scheduleExclusive(
    scheduler,
    intervalMs,
    async () => {
      const deleted = await deps.store.housekeeping.sweepExpired(deps.clock.now());
      deps.log.info("expired sessions swept", { deleted });
    },
    (err) => deps.log.warn("expired-session sweep failed", { err }),
  );
}
