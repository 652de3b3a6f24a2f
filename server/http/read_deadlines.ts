/**
 * Deadlines for reads in progress (request bodies, and the claims hook's calls), all sharing
 * one timer. A `setTimeout` per request costs about 2 µs (set and clear), several percent of a whole refresh; here a request
 * only joins a set, and the one timer, armed for the earliest deadline, is left to fire (it is
 * unref'd, so it never keeps the process alive) instead of being cleared each time.
 *
 * @module
 */

/** Rejection reason of a read that ran out of time. */
export const LATE: unique symbol = Symbol("late");

/** Least time between two firings of the shared timer (ms): deadlines are this coarse. */
const GRANULARITY_MS = 100;

interface Pending {
  readonly at: number;
  readonly late: () => void;
}

/**
 * A set of reads with deadlines on one timer.
 *
 * @example
 * ```ts
 * import { LATE, ReadDeadlines } from "./read_deadlines.ts";
 *
 * const deadlines = new ReadDeadlines();
 * const body = await deadlines.race(Promise.resolve(new ArrayBuffer(4)), 10).catch((err) => {
 *   // The timer is unref'd: a read that outlives its deadline rejects with LATE while the
 *   // server keeps the process alive.
 *   if (err === LATE) return undefined;
 *   throw err;
 * });
 * if (body?.byteLength !== 4) throw new Error("a read in time resolves with its value");
 * ```
 */
export class ReadDeadlines {
  readonly #pending = new Set<Pending>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #armedFor = Infinity;

  /**
   * `work`, or a rejection with {@linkcode LATE} once `seconds` pass (give or take 100 ms),
   * calling `onLate` first (to cancel what `work` waits for). `work` settling later is ignored.
   *
   * @param work the read
   * @param seconds the deadline from now
   * @param onLate called when time runs out, before the rejection
   * @returns what `work` resolved to
   */
  race<T>(work: Promise<T>, seconds: number, onLate?: () => void): Promise<T> {
    // One promise settled by whichever comes first, rather than Promise.race over a second
    // promise per read: this runs on every /token request.
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = {
        at: performance.now() + seconds * 1000,
        late: () => {
          work.catch(() => {}); // its failure after the deadline is nobody's concern
          onLate?.();
          reject(LATE);
        },
      };
      this.#pending.add(entry);
      if (entry.at < this.#armedFor) this.#arm(entry.at);
      work.then((value) => {
        this.#pending.delete(entry);
        resolve(value);
      }, (err) => {
        this.#pending.delete(entry);
        reject(err);
      });
    });
  }

  #arm(at: number): void {
    clearTimeout(this.#timer);
    this.#armedFor = at;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, at - performance.now()));
    Deno.unrefTimer(this.#timer);
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const entry of this.#pending) {
      if (entry.at <= now) {
        this.#pending.delete(entry);
        entry.late();
      } else if (entry.at < next) next = entry.at;
    }
    if (next !== Infinity) this.#arm(Math.max(next, now + GRANULARITY_MS));
  }
}
