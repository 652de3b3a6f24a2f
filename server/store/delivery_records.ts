/**
 * How a message's delivery record and queue entry change, shared by the store adapters: when
 * the message is written, after an attempt, and when an operator asks for a redelivery. Pure.
 *
 * @module
 */
import type {
  DeliveryAttempt,
  DeliveryRecord,
  OutboxMessage,
  PendingDelivery,
  Settlement,
} from "./outbox.ts";

/** The message alone, without the delivery state a record or queue entry adds to it. */
function messageOf(m: OutboxMessage): OutboxMessage {
  const { id, endpoint, type, created_at, data } = m;
  return { id, endpoint, type, created_at, data };
}

/** A new message's delivery record and queue entry: due at once, no attempt made. */
export function queued(m: OutboxMessage): [DeliveryRecord, PendingDelivery] {
  const message = messageOf(m);
  return [
    { ...message, state: "pending", attempts: [], next_attempt_at: m.created_at },
    { ...message, attempts: 0, next_attempt_at: m.created_at },
  ];
}

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
  const message = messageOf(m);
  const attempts = [...stored?.attempts ?? [], attempt];
  return "retry_at" in settlement
    ? { ...message, state: "pending", attempts, next_attempt_at: settlement.retry_at }
    : { ...message, state: settlement.state, attempts, expires_at: settlement.keep_until };
}

/**
 * A settled delivery queued again at `now`: its record (pending, its attempts kept) and its
 * queue entry (no attempt made since, the 24-hour retry window starting now).
 */
export function requeued(d: DeliveryRecord, now: number): [DeliveryRecord, PendingDelivery] {
  const message = messageOf(d);
  return [
    { ...message, state: "pending", attempts: d.attempts, next_attempt_at: now },
    { ...message, attempts: 0, next_attempt_at: now, queued_at: now },
  ];
}
