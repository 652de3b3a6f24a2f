/**
 * The queue in front of a store's group-committed rotations (KV and PostgreSQL alike): one
 * rotation per token at a time in this process, the rest batched by {@linkcode Batcher}.
 *
 * @module
 */
import type { RefreshRecord, RefreshSnapshot, RotateOutcome } from "./sessions.ts";
import { Batcher } from "./batcher.ts";

/** A rotation waiting for its group commit; the batch settles it. */
export interface PendingRotation {
  readonly snapshot: RefreshSnapshot;
  readonly retired: RefreshRecord;
  readonly next: RefreshRecord;
  readonly resolve: (outcome: RotateOutcome) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Queues rotations for `commit`, which must settle each one. A second rotation of a token
 * whose rotation is queued or in flight here is not queued (one batch would find the row
 * twice): it answers `raced` once the first settled, so its caller's re-read sees the outcome.
 */
export class RotationQueue {
  #rotating = new Map<string, Promise<unknown>>();
  #batcher: Batcher<PendingRotation>;

  /**
   * @param commit commits one batch and settles every rotation in it
   * @param maxBatch most rotations per batch
   * @param maxInFlight most batches in flight
   */
  constructor(
    commit: (batch: PendingRotation[]) => Promise<void>,
    maxBatch: number,
    maxInFlight: number,
  ) {
    this.#batcher = new Batcher(commit, maxBatch, maxInFlight);
  }

  /**
   * Queues a rotation.
   *
   * @returns how the commit decided, or `raced`
   */
  rotate(
    snapshot: RefreshSnapshot,
    retired: RefreshRecord,
    next: RefreshRecord,
  ): Promise<RotateOutcome> {
    const hash = retired.hash;
    const underWay = this.#rotating.get(hash);
    if (underWay) return underWay.then(() => "raced", () => "raced");
    const { promise, resolve, reject } = Promise.withResolvers<RotateOutcome>();
    this.#rotating.set(hash, promise);
    const forget = () => this.#rotating.delete(hash);
    this.#batcher.push({
      snapshot,
      retired,
      next,
      resolve: (outcome) => {
        forget();
        resolve(outcome);
      },
      reject: (err) => {
        forget();
        reject(err);
      },
    });
    return promise;
  }
}
