/**
 * The backfill's progress bar (pure): `backfill [######------] 12/90 days`.
 *
 * @module
 */

/**
 * One frame of the bar.
 *
 * @param done days finished
 * @param total days to do
 * @param width characters between the brackets
 * @returns the line (no newline, no escape codes)
 */
export function backfillProgress(done: number, total: number, width = 24): string {
  const ratio = total > 0 ? Math.min(1, Math.max(0, done / total)) : 1;
  const filled = Math.round(ratio * width);
  return `backfill [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} days`;
}
