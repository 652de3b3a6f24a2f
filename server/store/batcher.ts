/**
 * Group commit as a small mechanism shared by the stores' hot paths: items pushed while a batch
 * is in flight wait and go out together in the next one.
 *
 * @module
 */

/**
 * Runs pushed items in batches: the first item starts a batch at once; items pushed while it is
 * in flight gather into the next. A second batch starts while one is in flight only when a full
 * batch is waiting (up to `maxInFlight`), so the backend never idles on a full queue while
 * batches at moderate load stay as large as one-at-a-time makes them.
 *
 * @example
 * ```ts
 * type Pending = { key: string; resolve: () => void };
 * const commitAll = (batch: Pending[]) => Promise.resolve(batch.forEach((p) => p.resolve()));
 * const writes = new Batcher<Pending>((batch) => commitAll(batch), 25);
 * await new Promise<void>((resolve) => writes.push({ key: "a", resolve })); // settled by its batch
 * ```
 */
export class Batcher<T> {
  #queue: T[] = [];
  #inFlight = 0;

  /**
   * @param run handles one batch; it must settle every item it is given (it owns their
   *   promises), and its own rejection is ignored
   * @param maxBatch most items per batch
   * @param maxInFlight most batches in flight (default 2)
   */
  constructor(
    private readonly run: (batch: T[]) => Promise<void>,
    private readonly maxBatch: number,
    private readonly maxInFlight = 2,
  ) {}

  /** Queues `item` and starts a batch if the rule allows. */
  push(item: T): void {
    this.#queue.push(item);
    this.#pump();
  }

  #pump(): void {
    while (
      this.#queue.length > 0 &&
      (this.#inFlight === 0 ||
        (this.#inFlight < this.maxInFlight && this.#queue.length >= this.maxBatch))
    ) {
      this.#inFlight++;
      this.run(this.#queue.splice(0, this.maxBatch)).catch(() => {}).finally(() => {
        this.#inFlight--;
        this.#pump();
      });
    }
  }
}
