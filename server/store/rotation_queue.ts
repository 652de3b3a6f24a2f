/**
 * The queue in front of a store's group-committed rotations (KV and PostgreSQL alike): one
 * rotation per token at a time in this process, the rest batched by {@linkcode Batcher}.
 *
 * @module
 */
import type { ProofMark } from "./dpop.ts";
import type { RefreshRecord, RefreshSnapshot, RotateOutcome } from "./sessions.ts";
import { Batcher } from "./batcher.ts";

/** A rotation waiting for its group commit; the batch settles it. */
export interface PendingRotation {
  readonly snapshot: RefreshSnapshot;
  readonly retired: RefreshRecord;
  readonly next: RefreshRecord;
  /** The DPoP proof's single-use mark committed with the rotation, if the refresh had one. */
  readonly mark: ProofMark | undefined;
  readonly resolve: (outcome: RotateOutcome) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Whether two rotations of `batch` carry the same proof mark: one commit would check the mark
 * absent for both and let both through, so such a batch is committed one rotation at a time.
 */
export function sharesMark(batch: readonly PendingRotation[]): boolean {
  const ids = new Set<string>();
  for (const { mark } of batch) {
    if (mark === undefined) continue;
    if (ids.has(mark.id)) return true;
    ids.add(mark.id);
  }
  return false;
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
    mark?: ProofMark,
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
      mark,
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
