/**
 * How a delivery record changes, shared by the store adapters: after an attempt, and when an
 * operator asks for a redelivery. Pure.
 *
 * @module
 */
import type { DeliveryAttempt, DeliveryRecord, PendingDelivery, Settlement } from "./store.ts";

/**
 * The delivery record after `attempt` of `m` ended in `settlement` (`stored` is the record as
 * it was; absent for a message queued before delivery records were kept).
 */
export function settledRecord(
  m: PendingDelivery,
  stored: DeliveryRecord | null | undefined,
  attempt: DeliveryAttempt,
  settlement: Settlement,
): DeliveryRecord {
  const { id, endpoint, type, created_at, data } = m;
  const attempts = [...stored?.attempts ?? [], attempt];
  return "retry_at" in settlement
    ? {
      id,
      endpoint,
      type,
      created_at,
      data,
      state: "pending",
      attempts,
      next_attempt_at: settlement.retry_at,
    }
    : {
      id,
      endpoint,
      type,
      created_at,
      data,
      state: settlement.state,
      attempts,
      expires_at: settlement.keep_until,
    };
}

/**
 * A settled delivery queued again at `now`: its record (pending, its attempts kept) and its
 * outbox message (no attempt made since, the 24-hour retry window starting now).
 */
export function requeued(d: DeliveryRecord, now: number): [DeliveryRecord, PendingDelivery] {
  const { id, endpoint, type, created_at, data } = d;
  return [
    {
      id,
      endpoint,
      type,
      created_at,
      data,
      state: "pending",
      attempts: d.attempts,
      next_attempt_at: now,
    },
    { id, endpoint, type, created_at, data, attempts: 0, next_attempt_at: now, queued_at: now },
  ];
}
