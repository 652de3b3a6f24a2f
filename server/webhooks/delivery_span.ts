import type { Tracing } from "../telemetry/tracing.ts";
import type { PendingDelivery } from "../store/store.ts";
import type { WebhookEndpoint } from "./event_types.ts";

/**
 * Runs one delivery attempt as a trace of its own (`webhook deliver`): the endpoint, its host,
 * the message id and event type, the attempt's number and its outcome. Deno's client span of
 * the POST sits under it, and carries its `traceparent` to the receiver.
 *
 * @param tracing where spans are made
 * @param endpoint the endpoint the message goes to
 * @param message the claimed message
 * @param attempt the attempt: `undefined` on a 2xx, else what went wrong
 * @returns what `attempt` returned
 */
export function traceDelivery(
  tracing: Tracing,
  endpoint: WebhookEndpoint,
  message: PendingDelivery,
  attempt: () => Promise<string | undefined>,
): Promise<string | undefined> {
  const attributes = {
    "webhook.endpoint": endpoint.id,
    "server.address": new URL(endpoint.url).hostname,
    "webhook.message_id": message.id,
    "webhook.event_type": message.type,
    "webhook.attempt": message.attempts + 1,
  };
  return tracing.inSpan("webhook deliver", attributes, async (span) => {
    const error = await attempt();
    span.setAttributes({ "webhook.outcome": error ?? "delivered" });
    if (error !== undefined) span.fail(error);
    return error;
  }, { root: true });
}
