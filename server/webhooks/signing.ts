/**
 * Standard Webhooks signing, shared by the webhook deliveries and the access-token hook: the
 * `webhook-id`, `webhook-timestamp` and `webhook-signature` headers (HMAC-SHA256 over
 * `id.timestamp.body`, signed by the `standardwebhooks` reference library).
 *
 * @module
 */
import { Webhook } from "standardwebhooks";
import type { OutboxMessage } from "../store/outbox.ts";

/**
 * Signs bodies with one secret: the headers of one signed JSON POST of `body` as message `id`
 * at `now` (ms). Built once per secret, so a caller signing on every request (the access-token
 * hook) imports the key once.
 */
export type BodySigner = (id: string, body: string, now: number) => Record<string, string>;

/**
 * A {@linkcode BodySigner} for `secret` (the raw HMAC key bytes).
 *
 * @example
 * ```ts
 * const sign = bodySigner(new TextEncoder().encode("a secret of at least 24 bytes"));
 * sign("msg_1", "{}", Date.now())["webhook-signature"]; // "v1,…"
 * ```
 */
export function bodySigner(secret: Uint8Array): BodySigner {
  // A copy: the caller's array may change later, the signer's key may not.
  const signer = new Webhook(secret.slice(), { format: "raw" });
  return (id, body, now) => ({
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(now / 1000)),
    "webhook-signature": signer.sign(id, new Date(now), body),
  });
}

/**
 * The HTTP request of one webhook message, per the Standard Webhooks specification: the JSON
 * body `{type, timestamp, data}` and the signature headers, signed with `secret` at `now`.
 */
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
  return { body, headers: bodySigner(secret)(message.id, body, now) };
}
