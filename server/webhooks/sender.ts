/**
 * The webhook sender: on every tick of the injected {@linkcode Scheduler} it claims the due head
 * of each endpoint's outbox queue, sends it signed, and settles it: removed once the endpoint
 * answered 2xx, else kept for a later attempt (`retry_schedule.ts`); every attempt is added to the
 * message's delivery record (`GET /internal/webhooks/deliveries`). Delivery is at least once:
 * a message is removed only after its 2xx, so a crash between the send and the settle sends it
 * again (same `webhook-id`, so receivers can deduplicate). Messages of one endpoint go out one
 * at a time in creation order; endpoints do not wait for each other.
 *
 * @module
 */
import type { Clock, Logger, Random } from "@org/shared";
import type { WebhookEndpoint } from "./event_types.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { type ScheduledTask, scheduleExclusive, type Scheduler } from "../scheduler.ts";
import type { DeliveryAttempt, PendingDelivery } from "../store/outbox.ts";
import type { Store } from "../store/store.ts";
import { FAILING_AFTER, nextAttemptAt } from "./retry_schedule.ts";
import { signedRequest } from "./signing.ts";
import { traceDelivery } from "./delivery_span.ts";
import type { Tracing } from "../telemetry/tracing.ts";

/** Longest one delivery attempt may take (ms) before it counts as failed. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** How often the sender looks for due messages (ms). */
export const SEND_INTERVAL_MS = 1_000;

/** What the sender depends on. */
export interface SenderDeps {
  /** The outbox it sends from and the endpoints' failure runs it counts. */
  readonly store: Pick<Store, "outbox" | "webhookHealth">;
  readonly clock: Clock;
  readonly random: Random;
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly endpoints: readonly WebhookEndpoint[];
  /** How long delivered and failed records are kept (ms; `webhooks.retention`). */
  readonly retentionMs: number;
  /** This instance's name in the claims it takes (any unique string). */
  readonly owner: string;
  /** Defaults to the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Defaults to {@linkcode ATTEMPT_TIMEOUT_MS}. */
  readonly attemptTimeoutMs?: number;
  /** Set when tracing is on: each attempt is then a trace of its own. */
  readonly tracing?: Tracing | undefined;
}

/**
 * Delivers the outbox to the configured endpoints.
 *
 * @example
 * ```ts
 * import type { ServiceDeps } from "../deps.ts";
 * import { intervalScheduler } from "../scheduler.ts";
 *
 * // One sender per instance; `owner` names this instance's leases.
 * function startWebhooks(deps: ServiceDeps, owner: string) {
 *   const { endpoints, retention } = deps.config.webhooks;
 *   const sender = new WebhookSender({ ...deps, endpoints, retentionMs: retention * 1000, owner });
 *   return scheduleWebhookSender(sender, intervalScheduler, deps.log);
 * }
 * ```
 */
export class WebhookSender {
  /**
   * Consecutive failed attempts per endpoint id, as the store last said: counted there by every
   * instance, read again at each pass, so all instances report the same endpoints failing.
   */
  readonly #failures = new Map<string, number>();
  #running: Promise<number> | undefined;

  /** @param deps store, clock, randomness, logger, metrics, endpoints and this instance's name */
  constructor(private readonly deps: SenderDeps) {}

  /**
   * One pass: every endpoint receives its due messages in order until one fails or none is due.
   * A pass already under way is joined rather than run twice.
   *
   * @returns how many messages were delivered
   */
  deliverDue(): Promise<number> {
    this.#running ??= this.#pass().finally(() => this.#running = undefined);
    return this.#running;
  }

  /**
   * True while `endpoint`'s last {@linkcode FAILING_AFTER} attempts or more, by any instance, all
   * failed (as the store said at this sender's last pass or attempt; `webhookHealth` in the store
   * is the shared truth).
   */
  failing(endpoint: string): boolean {
    return (this.#failures.get(endpoint) ?? 0) >= FAILING_AFTER;
  }

  async #pass(): Promise<number> {
    const runs = await this.deps.store.webhookHealth.read();
    for (const { id } of this.deps.endpoints) {
      this.#failures.set(id, runs.get(id) ?? 0);
      this.deps.metrics.webhookFailing(id, this.failing(id));
    }
    const counts = await Promise.all(this.deps.endpoints.map((e) => this.#drain(e)));
    return counts.reduce((a, b) => a + b, 0);
  }

  async #drain(endpoint: WebhookEndpoint): Promise<number> {
    const { store, clock } = this.deps;
    const timeout = this.deps.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
    let delivered = 0;
    for (;;) {
      const now = clock.now();
      // The lease outlasts the attempt, so no other instance sends this message meanwhile.
      const claimed = await store.outbox.claim(
        endpoint.id,
        this.deps.owner,
        now,
        now + 3 * timeout,
      );
      if (claimed === undefined) return delivered;
      const send = () => this.#attempt(endpoint, claimed, timeout);
      const { tracing } = this.deps;
      const attempt = await (tracing ? traceDelivery(tracing, endpoint, claimed, send) : send());
      const { error } = attempt;
      const keep_until = clock.now() + this.deps.retentionMs;
      if (error === undefined) {
        await store.outbox.settle(claimed, attempt, { state: "delivered", keep_until });
        await this.#record(endpoint, true);
        delivered++;
        continue;
      }
      await this.#record(endpoint, false);
      const at = nextAttemptAt(
        { created_at: claimed.queued_at ?? claimed.created_at, attempts: claimed.attempts },
        clock.now(),
        this.#jitter(),
      );
      if (at === undefined) {
        this.deps.log.error("webhook given up after 24 hours of failed attempts", {
          endpoint: endpoint.id,
          message: claimed.id,
          type: claimed.type,
          attempts: claimed.attempts + 1,
          error,
        });
        await store.outbox.settle(claimed, attempt, { state: "failed", keep_until });
        continue;
      }
      await store.outbox.settle(claimed, attempt, { retry_at: at });
      return delivered;
    }
  }

  /** Sends one attempt; what it saw (`error` absent on a 2xx). */
  async #attempt(
    endpoint: WebhookEndpoint,
    message: PendingDelivery,
    timeout: number,
  ): Promise<DeliveryAttempt> {
    const at = this.deps.clock.now();
    // Durations by the monotonic timer: the injected clock may stand still in tests.
    const started = performance.now();
    const seen = await this.#send(endpoint, message, at, timeout);
    return { at, ...seen, duration_ms: Math.round(performance.now() - started) };
  }

  async #send(
    endpoint: WebhookEndpoint,
    message: PendingDelivery,
    at: number,
    timeout: number,
  ): Promise<{ status?: number; error?: string }> {
    const { body, headers } = signedRequest(message, endpoint.secret, at);
    try {
      const res = await (this.deps.fetch ?? fetch)(endpoint.url, {
        method: "POST",
        // The delivery's span travels with it where the runtime's fetch does not carry it.
        headers: { ...headers, ...this.deps.tracing?.traceHeaders() },
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(timeout),
      });
      await res.body?.cancel();
      return res.ok ? { status: res.status } : { status: res.status, error: `HTTP ${res.status}` };
    } catch (err) {
      return {
        error: err instanceof Error && err.name === "TimeoutError"
          ? `no answer within ${timeout / 1000}s`
          : "connection failed",
      };
    }
  }

  async #record(endpoint: WebhookEndpoint, delivered: boolean): Promise<void> {
    // A success with no run of failures to end writes nothing (a healthy endpoint's case).
    const { before, after } = delivered && !this.#failures.get(endpoint.id)
      ? { before: 0, after: 0 }
      : await this.deps.store.webhookHealth.record(endpoint.id, delivered);
    this.#failures.set(endpoint.id, after);
    const was = before >= FAILING_AFTER;
    const now = after >= FAILING_AFTER;
    this.deps.metrics.webhookAttempt(endpoint.id, delivered, now);
    // Only the instance whose attempt crossed the line logs it: one line per change, not one
    // per instance.
    if (now && !was) {
      this.deps.log.warn("webhook endpoint failing", {
        endpoint: endpoint.id,
        url: endpoint.url,
        consecutive_failures: FAILING_AFTER,
      });
    } else if (was && !now) {
      this.deps.log.info("webhook endpoint recovered", {
        endpoint: endpoint.id,
        url: endpoint.url,
      });
    }
  }

  #jitter(): number {
    const [a = 0, b = 0] = this.deps.random.bytes(2);
    return (a * 256 + b) / 65536;
  }
}

/**
 * Runs `sender` every `everyMs` on `scheduler`; a failing pass is logged and the next tick
 * tries again (nothing is lost: the messages stay in the outbox).
 *
 * @returns a handle whose `stop()` also waits for a pass under way, so shutdown never closes
 *   the store under it
 */
export function scheduleWebhookSender(
  sender: WebhookSender,
  scheduler: Scheduler,
  log: Logger,
  everyMs: number = SEND_INTERVAL_MS,
): ScheduledTask {
  return scheduleExclusive(
    scheduler,
    everyMs,
    async () => {
      await sender.deliverDue();
    },
    (err) => log.error("webhook pass failed", { err }),
  );
}
