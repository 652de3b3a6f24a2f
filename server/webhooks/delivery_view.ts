/**
 * A webhook delivery as operators see it (`GET /internal/webhooks/deliveries`, the console),
 * and its id: one message for one endpoint.
 *
 * @module
 */
import type { DeliveryRecord, DeliveryState } from "../store/outbox.ts";

/** One attempt as operators see it. */
export interface AttemptView {
  /** ISO 8601 (UTC): when it started. */
  readonly at: string;
  /** The endpoint's HTTP status; `null` when no answer came. */
  readonly status: number | null;
  /** Why it failed; `null` when delivered. */
  readonly error: string | null;
  readonly duration_ms: number;
}

/** One delivery as operators see it. */
export interface DeliveryView {
  /** `dlv_…`: names this message for this endpoint (redeliver it by this id). */
  readonly id: string;
  /** The message id, the `webhook-id` header (shared by every endpoint of one event). */
  readonly message_id: string;
  readonly endpoint: string;
  /** The endpoint's URL, `null` once it is no longer configured. */
  readonly url: string | null;
  /** The event type. */
  readonly type: string;
  readonly state: DeliveryState;
  /** ISO 8601 (UTC): the change's time. */
  readonly created_at: string;
  /** ISO 8601 (UTC): while pending, no attempt before then. */
  readonly next_attempt_at: string | null;
  /** Oldest first. */
  readonly attempts: readonly AttemptView[];
}

const ULID = "[0-9A-HJKMNP-TV-Z]{26}";
const DELIVERY_ID = new RegExp(`^dlv_(${ULID})([A-Za-z0-9_-]{22})$`);

/**
 * The id of message `messageId` (`msg_` + ULID) for endpoint `endpoint` (`whe_` + 22
 * characters): `dlv_` + both, so ids sort as the listing does (newest message first).
 */
export function deliveryId(messageId: string, endpoint: string): string {
  return `dlv_${messageId.slice(4)}${endpoint.slice(4)}`;
}

/** The message id and endpoint a delivery id names, or `undefined` for anything else. */
export function parseDeliveryId(id: string): [messageId: string, endpoint: string] | undefined {
  const m = DELIVERY_ID.exec(id);
  return m ? [`msg_${m[1]}`, `whe_${m[2]}`] : undefined;
}

/** `d` as operators see it; `urls` maps the configured endpoints' ids to their URLs. */
export function deliveryView(
  d: DeliveryRecord,
  urls: ReadonlyMap<string, string>,
): DeliveryView {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id: deliveryId(d.id, d.endpoint),
    message_id: d.id,
    endpoint: d.endpoint,
    url: urls.get(d.endpoint) ?? null,
    type: d.type,
    state: d.state,
    created_at: iso(d.created_at),
    next_attempt_at: d.state === "pending" && d.next_attempt_at !== undefined
      ? iso(d.next_attempt_at)
      : null,
    attempts: d.attempts.map((a) => ({
      at: iso(a.at),
      status: a.status ?? null,
      error: a.error ?? null,
      duration_ms: a.duration_ms,
    })),
  };
}
