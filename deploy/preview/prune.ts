/**
 * Which previews `preview prune --older-than <duration>` destroys (pure): those not deployed
 * for longer than the duration. Dead previews otherwise stay until someone notices the bill.
 *
 * @module
 */

/** A preview and when it was last deployed. */
export interface PreviewAge {
  /** The preview id. */
  readonly id: string;
  /**
   * Last deploy, in ms since the epoch: the record's `deployedAt`, or for a preview without a
   * record (a deploy that failed half way) its newest file's upload time.
   */
  readonly lastDeployedAt: number;
}

/**
 * The previews to prune (pure): last deployed strictly more than `olderThanSeconds` ago.
 *
 * @param previews every preview with its last deploy time
 * @param now the current time, ms since the epoch (the injected clock)
 * @param olderThanSeconds the `--older-than` duration, in seconds
 * @returns the ids to destroy, oldest first (ties by id)
 *
 * @example
 * ```ts
 * previewsToPrune([{ id: "pr-1", lastDeployedAt: 0 }], 15 * 86_400_000, 14 * 86_400); // ["pr-1"]
 * ```
 */
export function previewsToPrune(
  previews: readonly PreviewAge[],
  now: number,
  olderThanSeconds: number,
): string[] {
  const cutoff = now - olderThanSeconds * 1000;
  return previews
    .filter((p) => p.lastDeployedAt < cutoff)
    .sort((a, b) => a.lastDeployedAt - b.lastDeployedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((p) => p.id);
}
