/**
 * Which days a backfill may load (pure): the whole UTC days before the analytics delivery was
 * created, at most `retention.cloudfrontDays` of them (the site's CloudFront log group keeps
 * no more). The day the delivery was created is partial in the log group and already flows
 * through the pipeline, so it is never backfilled.
 *
 * @module
 */
import { utcDay } from "../queries/range.ts";

/**
 * The days to backfill, oldest first.
 *
 * @param deliveryCreatedAt when the analytics log delivery was created, ms since the epoch
 * @param cloudfrontDays `retention.cloudfrontDays`
 * @returns `YYYY-MM-DD` days
 *
 * @example
 * ```ts
 * backfillDays(Date.parse("2026-02-03T15:00:00Z"), 3); // ["2026-01-31", "2026-02-01", "2026-02-02"]
 * ```
 */
export function backfillDays(deliveryCreatedAt: number, cloudfrontDays: number): string[] {
  const days: string[] = [];
  for (let back = Math.max(0, Math.floor(cloudfrontDays)); back >= 1; back--) {
    days.push(utcDay(deliveryCreatedAt, -back));
  }
  return days;
}
