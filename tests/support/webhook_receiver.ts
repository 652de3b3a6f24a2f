/**
 * A loopback webhook receiver for tests: every request is verified with the Standard Webhooks
 * reference library (`standardwebhooks`), recorded, and answered as the test says. It also
 * plays the app's access-token hook (`reply`).
 *
 * @module
 */
import { Webhook } from "standardwebhooks";

/** One request the receiver got. */
export interface ReceivedWebhook {
  readonly id: string;
  /** Whether `standardwebhooks` verified its signature and timestamp. */
  readonly verified: boolean;
  /** The status answered. */
  readonly status: number;
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly body: string;
  /** The W3C `traceparent` the delivery carried, if any (with tracing on). */
  readonly traceparent: string | null;
}

/** A running receiver. */
export interface WebhookReceiver extends AsyncDisposable {
  readonly url: string;
  readonly received: ReceivedWebhook[];
  /** The status to answer a verified request with next (default 204). */
  answer: number;
  /** While true, requests are held unanswered (a hang, past any sender's timeout) until released. */
  holding: boolean;
  /** Stops holding and answers every held request. */
  release(): void;
  /**
   * Answers a verified request instead of `answer` (the access-token hook's `{claims}`);
   * given the parsed JSON body.
   */
  reply?: ((body: Record<string, unknown>) => Response) | undefined;
}

/**
 * Starts a receiver on 127.0.0.1 (port 0) verifying with `secret` (the `whsec_…` form).
 */
export function startWebhookReceiver(secret: string): WebhookReceiver {
  const verifier = new Webhook(secret);
  const received: ReceivedWebhook[] = [];
  let held = Promise.withResolvers<void>();
  const receiver: WebhookReceiver & { url: string } = {
    url: "",
    received,
    answer: 204,
    holding: false,
    release() {
      receiver.holding = false;
      held.resolve();
      held = Promise.withResolvers<void>();
    },
    [Symbol.asyncDispose]: async () => {
      receiver.release();
      await server.shutdown();
    },
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.text();
    let verified = true;
    try {
      verifier.verify(body, Object.fromEntries(req.headers));
    } catch {
      verified = false;
    }
    const parsed = JSON.parse(body) as Record<string, unknown> & {
      type: string;
      data: Record<string, unknown>;
    };
    const status = verified ? receiver.answer : 400;
    const hold = receiver.holding ? held.promise : undefined;
    received.push({
      id: req.headers.get("webhook-id") ?? "",
      verified,
      status,
      type: parsed.type,
      data: parsed.data,
      body,
      traceparent: req.headers.get("traceparent"),
    });
    if (hold) await hold;
    if (verified && receiver.reply !== undefined) return receiver.reply(parsed);
    return new Response(null, { status });
  });
  receiver.url = `http://127.0.0.1:${server.addr.port}/hook`;
  return receiver;
}
