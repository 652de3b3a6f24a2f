/**
 * The webhook outbox: messages committed with their changes, their delivery state and records.
 *
 * @module
 */
import type { AuditRecord } from "./audit.ts";

/**
 * One webhook message for one endpoint, written to the outbox in the same atomic commit as the
 * change it reports (`webhooks/events.ts` builds them), so no change is without its message and
 * no message without its change. It never holds a token or a secret.
 */
export interface OutboxMessage {
  /** `msg_` followed by a ULID: the Standard Webhooks `webhook-id`, shared by every endpoint. */
  readonly id: string;
  /** The endpoint's stable id (from its URL, `config/webhooks.ts`); sent per endpoint in id order. */
  readonly endpoint: string;
  /** The event type, e.g. `user.created`. */
  readonly type: string;
  /** When the change was committed (ms). */
  readonly created_at: number;
  /** The event's `data` object. */
  readonly data: Readonly<Record<string, unknown>>;
}

/** An outbox message not yet delivered, with its delivery state. */
export interface PendingDelivery extends OutboxMessage {
  /** Attempts made so far (since the last redelivery). */
  readonly attempts: number;
  /** No attempt before this time (ms). */
  readonly next_attempt_at: number;
  /**
   * Start of the retry window (ms): `created_at`, or the time an operator asked for a
   * redelivery (absent: `created_at`).
   */
  readonly queued_at?: number;
  /** The claim of the instance sending it now: no other instance takes it before `lease_until`. */
  readonly lease_until?: number;
  readonly lease_owner?: string;
  /** What the last failed attempt saw (a status or a network error), for operators. */
  readonly last_error?: string;
}

/** One attempt to deliver a message to an endpoint, as operators see it. */
export interface DeliveryAttempt {
  /** When it started (ms). */
  readonly at: number;
  /** The endpoint's HTTP status; absent when no answer came (connection failed, timeout). */
  readonly status?: number;
  /** Why it failed (`HTTP 503`, `no answer within 10s`, …); absent when delivered. */
  readonly error?: string;
  /** How long it took (ms). */
  readonly duration_ms: number;
}

/** Where one message stands for one endpoint. */
export type DeliveryState = "pending" | "delivered" | "failed";

/**
 * The record of one message for one endpoint (`GET /internal/webhooks/deliveries`): written
 * with the outbox message, updated at every attempt, kept once delivered or given up (`failed`)
 * until `expires_at` (`webhooks.retention`).
 */
export interface DeliveryRecord extends OutboxMessage {
  readonly state: DeliveryState;
  /** Every attempt, oldest first, across redeliveries. */
  readonly attempts: readonly DeliveryAttempt[];
  /** While pending: no attempt before this time (ms). */
  readonly next_attempt_at?: number;
  /** Once delivered or failed: kept until this time (ms), then the sweep removes it. */
  readonly expires_at?: number;
}

/** How a claimed message's attempt ended, for {@linkcode OutboxStore.settle}. */
export type Settlement =
  /** Failed; tried again at `retry_at` (ms). */
  | { readonly retry_at: number }
  /** Delivered (a 2xx), or given up (`failed`); the record is kept until `keep_until` (ms). */
  | { readonly state: "delivered" | "failed"; readonly keep_until: number };

/** What {@linkcode OutboxStore.redeliver} did. */
export interface Redelivery {
  readonly record: DeliveryRecord;
  /** False when the message was still pending (nothing changed). */
  readonly requeued: boolean;
}

/** Which deliveries a listing wants; every field given must match. */
export interface DeliveryQuery {
  /** Only deliveries before this one in the listing's order (its `[message id, endpoint]`). */
  readonly before?: readonly [id: string, endpoint: string];
  readonly endpoint?: string;
  readonly type?: string;
  readonly state?: DeliveryState;
}

/** The webhook outbox: one queue per endpoint, sent in message id (creation) order. */
export interface OutboxStore {
  /**
   * Claims the oldest undelivered message of `endpoint` for `owner` until `leaseUntil` (ms),
   * only if it is due (`next_attempt_at <= now`) and no other claim holds it. Messages behind
   * it wait, so one endpoint receives them in order; one message is never claimed by two
   * instances at once.
   *
   * @returns the claimed message, or `undefined` (nothing due, or the head is claimed)
   */
  claim(
    endpoint: string,
    owner: string,
    now: number,
    leaseUntil: number,
  ): Promise<PendingDelivery | undefined>;
  /**
   * Settles `claimed` (as {@linkcode OutboxStore.claim} returned it) after `attempt`, and adds
   * the attempt to its delivery record: with `retry_at`, keeps it queued with one more attempt
   * and the claim released; else removes it from the queue and keeps its record as delivered
   * or failed. Only the claim's holder settles: false when the claim was lost meanwhile
   * (nothing written).
   */
  settle(
    claimed: PendingDelivery,
    attempt: DeliveryAttempt,
    settlement: Settlement,
  ): Promise<boolean>;
  /** Undelivered messages of `endpoint` in send order, at most `limit` (tests, operators). */
  pending(endpoint: string, limit: number): Promise<PendingDelivery[]>;
  /** Delivery records matching `query`, newest message first (then endpoint), at most `limit`. */
  deliveries(query: DeliveryQuery, limit: number): Promise<DeliveryRecord[]>;
  /**
   * Queues a delivered or failed message for `endpoint` again, due at `now`, in one atomic step
   * with `audit`; a message still pending is left as it is (nothing written, `audit` neither).
   *
   * @returns its delivery record after the call and whether it was queued now, or `undefined`
   *   when there is none
   */
  redeliver(
    endpoint: string,
    id: string,
    now: number,
    audit?: readonly AuditRecord[],
  ): Promise<Redelivery | undefined>;
}
