import type { Tracing } from "../telemetry/tracing.ts";
import type { DeliveryAttempt, PendingDelivery } from "../store/outbox.ts";
import type { WebhookEndpoint } from "./event_types.ts";

/**
 * Runs one delivery attempt as a trace of its own (`webhook deliver`): the endpoint, its host,
 * the message id and event type, the attempt's number and its outcome. Deno's client span of
 * the POST sits under it, and carries its `traceparent` to the receiver.
 *
 * @param tracing where spans are made
 * @param endpoint the endpoint the message goes to
 * @param message the claimed message
 * @param attempt the attempt: its `error` is absent on a 2xx, else what went wrong
 * @returns what `attempt` returned
 */
export function traceDelivery(
  tracing: Tracing,
  endpoint: WebhookEndpoint,
  message: PendingDelivery,
  attempt: () => Promise<DeliveryAttempt>,
): Promise<DeliveryAttempt> {
  const attributes = {
    "webhook.endpoint": endpoint.id,
    "server.address": new URL(endpoint.url).hostname,
    "webhook.message_id": message.id,
    "webhook.event_type": message.type,
    "webhook.attempt": message.attempts + 1,
  };
  return tracing.inSpan("webhook deliver", attributes, async (span) => {
    const result = await attempt();
    span.setAttributes({ "webhook.outcome": result.error ?? "delivered" });
    if (result.error !== undefined) span.fail(result.error);
    return result;
  }, { root: true });
}
