/**
 * Standard Webhooks signing, shared by the webhook deliveries and the access-token hook: the
 * `webhook-id`, `webhook-timestamp` and `webhook-signature` headers (HMAC-SHA256 over
 * `id.timestamp.body`, base64, as `v1,…`).
 *
 * The HMAC is `node:crypto`'s (native code): the `standardwebhooks` reference library's own
 * `sign` hashes in JavaScript and cost the access-token hook, which signs on every token, about
 * twice as much CPU. Its signatures are byte-identical (`signing_test.ts` checks each against
 * that library's `Webhook.verify`).
 *
 * @module
 */
import { createHmac } from "node:crypto";
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
  const key = secret.slice();
  return (id, body, now) => {
    const timestamp = String(Math.floor(now / 1000));
    const mac = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
    return {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": timestamp,
      "webhook-signature": `v1,${mac}`,
    };
  };
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
