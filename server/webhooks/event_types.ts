/**
 * The webhook event types and what an endpoint is, shared by the config that names them and
 * the code that builds and sends events (kept free of other imports, so both may use it).
 *
 * @module
 */

/** Every webhook event type, as `[[webhooks.endpoints]] events` names them. */
export const WEBHOOK_EVENT_TYPES = [
  "user.created",
  "user.updated",
  "user.deleted",
  "session.revoked",
  "refresh_token.reuse_detected",
  "operator.lockout",
] as const;

/** One webhook event type (`webhooks/events.ts` builds their payloads). */
export type WebhookEventType = typeof WEBHOOK_EVENT_TYPES[number];

/** One webhook endpoint (`[[webhooks.endpoints]]` as resolved by `config/webhooks.ts`). */
export interface WebhookEndpoint {
  /** Stable id derived from `url` (`whe_…`): the endpoint's outbox queue. */
  readonly id: string;
  /** `https`, or plain `http` only to a loopback host. */
  readonly url: string;
  /** The HMAC-SHA256 key (decoded from `whsec_…`, or the secret's UTF-8 bytes). */
  readonly secret: Uint8Array;
  /** The events this endpoint receives (every event when the file names none). */
  readonly events: readonly WebhookEventType[];
}
