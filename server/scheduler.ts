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
