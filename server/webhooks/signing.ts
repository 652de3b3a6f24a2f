/**
 * The HTTP request of one webhook message, per the Standard Webhooks specification: the JSON
 * body `{type, timestamp, data}` and the `webhook-id`, `webhook-timestamp` and
 * `webhook-signature` headers (HMAC-SHA256 over `id.timestamp.body`, signed by the
 * `standardwebhooks` reference library).
 *
 * @module
 */
import { Webhook } from "standardwebhooks";
import type { OutboxMessage } from "../store/outbox.ts";

/** The body and headers of one delivery attempt of `message`, signed with `secret` at `now`. */
export function signedRequest(
  message: OutboxMessage,
  secret: Uint8Array,
  now: number,
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({
    type: message.type,
    timestamp: new Date(message.created_at).toISOString(),
    data: message.data,
  });
  const at = new Date(now);
  return {
    body,
    headers: {
      "content-type": "application/json",
      "webhook-id": message.id,
      "webhook-timestamp": String(Math.floor(now / 1000)),
      "webhook-signature": new Webhook(secret, { format: "raw" }).sign(message.id, at, body),
    },
  };
}
