/**
 * The timer of a serving process's periodic work (the housekeeping sweep, the key-ring
 * re-read), injected so tests trigger runs instead of waiting.
 *
 * @module
 */

/** Runs a task repeatedly; injected so tests trigger runs instead of waiting. */
export interface Scheduler {
  /**
   * Calls `task` every `ms` milliseconds until the returned function is called. A task may
   * return the promise of its run, so a caller that triggers runs itself (a test) can await it.
   *
   * @returns a function that stops the repetition
   */
  every(ms: number, task: () => void | Promise<void>): () => void;
}

/** The real {@linkcode Scheduler}: `setInterval`, unref'd so it never keeps a process alive. */
export const intervalScheduler: Scheduler = {
  every(ms, task) {
    const timer = setInterval(task, ms);
    Deno.unrefTimer(timer);
    return () => clearInterval(timer);
  },
};

/** Periodic work started with {@linkcode scheduleExclusive}. */
export interface ScheduledTask {
  /** Stops future runs and waits for a run in progress to finish. */
  stop(): Promise<void>;
}

/**
 * Runs `task` every `intervalMs` on `scheduler`, one run at a time: a tick during a run gets
 * that run's promise instead of a second one. A failed run goes to `onError` and the next tick
 * tries again; `stop()` ends the schedule and waits for a run in progress, so shutdown never
 * closes a store under it. The one shape of every background job of `serve`.
 *
 * @param scheduler what repeats the runs
 * @param intervalMs the period
 * @param task one run
 * @param onError what a failed run does (it logs)
 * @returns a handle to stop it on shutdown
 *
 * @example
 * ```ts
 * const job = scheduleExclusive(intervalScheduler, 60_000, async () => {}, () => {});
 * await job.stop();
 * ```
 */
export function scheduleExclusive(
  scheduler: Scheduler,
  intervalMs: number,
  task: () => Promise<void>,
  onError: (err: unknown) => void,
): ScheduledTask {
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    running ??= task().catch(onError).finally(() => running = undefined);
    return running;
  };
  const cancel = scheduler.every(intervalMs, run);
  return {
    async stop() {
      stopped = true;
      cancel();
      await running;
    },
  };
}
