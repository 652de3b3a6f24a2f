/**
 * The in-process metrics registry of one service instance, rendered in the Prometheus text
 * exposition format (version 0.0.4) by `GET /internal/metrics`.
 *
 * Recording is a few map lookups and additions, no allocation on the steady path: the public
 * listener records every request, including the benchmarked refresh path. Values are per
 * process; a scraper sums instances.
 *
 * @module
 */

/** Which listener served a request. */
export type Listener = "public" | "internal";

/** Upper bounds (seconds) of the request-latency histogram buckets. */
export const LATENCY_BUCKETS: readonly number[] = [
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
];

/** How one access-token hook call ended. */
export type HookOutcome = "ok" | "denied" | "allowed";

const HOOK_OUTCOMES: readonly HookOutcome[] = ["ok", "denied", "allowed"];

interface RouteSeries {
  readonly listener: Listener;
  readonly route: string;
  /** Requests by HTTP status. */
  readonly statuses: Map<number, number>;
  /** Non-cumulative bucket counts; the last slot is +Inf. */
  readonly buckets: number[];
  sum: number;
  count: number;
}

/**
 * Counters and histograms of one process.
 *
 * @example
 * ```ts
 * const metrics = new Metrics();
 * metrics.observeRequest("public", "POST /token", 200, 0.004);
 * metrics.tokenIssued("refresh_token");
 * metrics.render(); // "# HELP token_exchange_http_requests_total …"
 * ```
 */
export class Metrics {
  /** Series by listener, then by route label (no key is built per request). */
  readonly #routes: Readonly<Record<Listener, Map<string, RouteSeries>>> = {
    public: new Map(),
    internal: new Map(),
  };
  readonly #issued = new Map<string, number>();
  #reuse = 0;
  #authFailures = 0;
  #lockouts = 0;
  #lockedOut = 0;
  #rateLimited = 0;
  /** Webhook delivery attempts by endpoint id and outcome, and which endpoints are failing. */
  readonly #webhooks = new Map<string, { delivered: number; failed: number; failing: boolean }>();
  readonly #revocations = new Map<string, number>();
  #revocationsPending = 0;
  /** Access-token hook calls: latency (non-cumulative buckets, last +Inf) and outcomes. */
  readonly #hook = {
    buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0),
    sum: 0,
    count: 0,
    outcomes: new Map<HookOutcome, number>(),
  };
  #droppedSpans: (() => { queueFull: number; exportFailed: number }) | undefined;

  /**
   * Records one answered request.
   *
   * @param listener the listener that served it
   * @param route the matched `METHOD pattern` (or `unmatched`): never a raw path, so the
   *   number of series stays bounded
   * @param status the HTTP status answered
   * @param seconds time from arrival to response
   */
  observeRequest(listener: Listener, route: string, status: number, seconds: number): void {
    const routes = this.#routes[listener];
    let s = routes.get(route);
    if (s === undefined) {
      s = {
        listener,
        route,
        statuses: new Map(),
        buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      routes.set(route, s);
    }
    s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1);
    let i = 0;
    while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]!) i++;
    s.buckets[i]!++;
    s.sum += seconds;
    s.count++;
  }

  /** Records one successful token response of `grant` (the `grant_type`). */
  tokenIssued(grant: string): void {
    this.#issued.set(grant, (this.#issued.get(grant) ?? 0) + 1);
  }

  /**
   * Records one call of the access-token hook: how long it took (answer read and checked, or
   * failure) and its outcome: `ok`, or a failure the policy turned into a refusal (`denied`)
   * or into a token without the hook's claims (`allowed`).
   */
  hookCall(outcome: HookOutcome, seconds: number): void {
    const h = this.#hook;
    let i = 0;
    while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]!) i++;
    h.buckets[i]!++;
    h.sum += seconds;
    h.count++;
    h.outcomes.set(outcome, (h.outcomes.get(outcome) ?? 0) + 1);
  }

  /** Records one detected refresh-token reuse (its session was revoked). */
  refreshReuse(): void {
    this.#reuse++;
  }

  /** Records one failed operator authentication on the internal listener. */
  operatorAuthFailure(): void {
    this.#authFailures++;
  }

  /** Records a peer being locked out (its failure count reached the threshold). */
  lockout(): void {
    this.#lockouts++;
  }

  /** Records one request refused with 429 because its peer is locked out. */
  lockedOutRequest(): void {
    this.#lockedOut++;
  }

  /** Records one public request refused with 429 by the rate limit. */
  rateLimited(): void {
    this.#rateLimited++;
  }

  /** Records one provider-token revocation attempt: `revoked`, `failed` (retried), `abandoned`. */
  providerRevocation(outcome: "revoked" | "failed" | "abandoned"): void {
    this.#revocations.set(outcome, (this.#revocations.get(outcome) ?? 0) + 1);
  }

  /** Records the revocation queue's length, as the last run of this process saw it. */
  providerRevocationsPending(n: number): void {
    this.#revocationsPending = n;
  }

  /**
   * Records one webhook delivery attempt to `endpoint` (its `whe_` id) and whether the
   * endpoint is now failing (`webhooks/sender.ts` decides).
   */
  webhookAttempt(endpoint: string, delivered: boolean, failing: boolean): void {
    const w = this.#webhook(endpoint);
    if (delivered) w.delivered++;
    else w.failed++;
    w.failing = failing;
  }

  /**
   * Sets whether `endpoint` is failing, as the store says (attempts of every instance count),
   * so each instance's gauge agrees with the others'.
   */
  webhookFailing(endpoint: string, failing: boolean): void {
    this.#webhook(endpoint).failing = failing;
  }

  #webhook(endpoint: string): { delivered: number; failed: number; failing: boolean } {
    let w = this.#webhooks.get(endpoint);
    if (w === undefined) {
      this.#webhooks.set(endpoint, w = { delivered: 0, failed: 0, failing: false });
    }
    return w;
  }

  /**
   * Reports the spans the tracer dropped instead of exporting (a full queue, a failed export:
   * a collector that is down), read at each scrape. Only under the SDK's tracing.
   */
  droppedSpansFrom(source: () => { queueFull: number; exportFailed: number }): void {
    this.#droppedSpans = source;
  }

  /**
   * The token counters as values (the console's overview shows them): successful token
   * responses by grant, and refresh reuses detected, since this process started.
   */
  tokenCounts(): { issued: Record<string, number>; refreshReuse: number } {
    return { issued: Object.fromEntries(this.#issued), refreshReuse: this.#reuse };
  }

  /** Everything recorded so far, in the Prometheus text format. */
  render(): string {
    const out: string[] = [];
    const series = [...this.#routes.public.values(), ...this.#routes.internal.values()];
    out.push(
      "# HELP token_exchange_http_requests_total HTTP requests answered, by listener, route and status.",
      "# TYPE token_exchange_http_requests_total counter",
    );
    for (const s of series) {
      for (const [status, n] of s.statuses) {
        out.push(
          `token_exchange_http_requests_total{${labels(s)},status="${status}"} ${n}`,
        );
      }
    }
    out.push(
      "# HELP token_exchange_http_request_duration_seconds Time from request to response.",
      "# TYPE token_exchange_http_request_duration_seconds histogram",
    );
    for (const s of series) {
      let cumulative = 0;
      for (let i = 0; i <= LATENCY_BUCKETS.length; i++) {
        cumulative += s.buckets[i]!;
        const le = i < LATENCY_BUCKETS.length ? String(LATENCY_BUCKETS[i]) : "+Inf";
        out.push(
          `token_exchange_http_request_duration_seconds_bucket{${
            labels(s)
          },le="${le}"} ${cumulative}`,
        );
      }
      out.push(`token_exchange_http_request_duration_seconds_sum{${labels(s)}} ${s.sum}`);
      out.push(`token_exchange_http_request_duration_seconds_count{${labels(s)}} ${s.count}`);
    }
    out.push(
      "# HELP token_exchange_tokens_issued_total Successful token responses, by grant_type.",
      "# TYPE token_exchange_tokens_issued_total counter",
    );
    for (const [grant, n] of this.#issued) {
      out.push(`token_exchange_tokens_issued_total{grant="${escape(grant)}"} ${n}`);
    }
    const single = (name: string, help: string, value: number) =>
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`, `${name} ${value}`);
    single(
      "token_exchange_refresh_reuse_detected_total",
      "Refresh tokens presented again outside the grace window (session revoked).",
      this.#reuse,
    );
    single(
      "token_exchange_operator_auth_failures_total",
      "Failed operator authentications on the internal listener.",
      this.#authFailures,
    );
    single(
      "token_exchange_operator_lockouts_total",
      "Peers locked out after reaching internal_api.lockout.threshold failures.",
      this.#lockouts,
    );
    single(
      "token_exchange_operator_lockout_rejections_total",
      "Internal requests refused with 429 because their peer is locked out.",
      this.#lockedOut,
    );
    single(
      "token_exchange_rate_limited_total",
      "Public requests refused with 429 by rate_limit.",
      this.#rateLimited,
    );
    out.push(
      "# HELP token_exchange_webhook_attempts_total Webhook delivery attempts, by endpoint and outcome.",
      "# TYPE token_exchange_webhook_attempts_total counter",
    );
    for (const [endpoint, w] of this.#webhooks) {
      for (const outcome of ["delivered", "failed"] as const) {
        out.push(
          `token_exchange_webhook_attempts_total{endpoint="${endpoint}",outcome="${outcome}"} ${
            w[outcome]
          }`,
        );
      }
    }
    out.push(
      "# HELP token_exchange_webhook_endpoint_failing 1 while an endpoint's deliveries keep failing.",
      "# TYPE token_exchange_webhook_endpoint_failing gauge",
    );
    for (const [endpoint, w] of this.#webhooks) {
      out.push(
        `token_exchange_webhook_endpoint_failing{endpoint="${endpoint}"} ${w.failing ? 1 : 0}`,
      );
    }
    out.push(
      "# HELP token_exchange_provider_revocations_total Provider token revocations (Sign in with Apple) attempted, by outcome.",
      "# TYPE token_exchange_provider_revocations_total counter",
    );
    for (const outcome of ["revoked", "failed", "abandoned"]) {
      out.push(
        `token_exchange_provider_revocations_total{outcome="${outcome}"} ${
          this.#revocations.get(outcome) ?? 0
        }`,
      );
    }
    out.push(
      "# HELP token_exchange_provider_revocations_pending Revocations waiting in the store's queue, at this instance's last run.",
      "# TYPE token_exchange_provider_revocations_pending gauge",
      `token_exchange_provider_revocations_pending ${this.#revocationsPending}`,
    );
    out.push(
      "# HELP token_exchange_hook_calls_total Access-token hook calls, by outcome (ok, denied: the grant failed, allowed: issued without the hook's claims).",
      "# TYPE token_exchange_hook_calls_total counter",
    );
    for (const outcome of HOOK_OUTCOMES) {
      out.push(
        `token_exchange_hook_calls_total{hook="access_token",outcome="${outcome}"} ${
          this.#hook.outcomes.get(outcome) ?? 0
        }`,
      );
    }
    out.push(
      "# HELP token_exchange_hook_duration_seconds Time from calling the access-token hook to its checked answer or failure.",
      "# TYPE token_exchange_hook_duration_seconds histogram",
    );
    let cumulative = 0;
    for (let i = 0; i <= LATENCY_BUCKETS.length; i++) {
      cumulative += this.#hook.buckets[i]!;
      const le = i < LATENCY_BUCKETS.length ? String(LATENCY_BUCKETS[i]) : "+Inf";
      out.push(
        `token_exchange_hook_duration_seconds_bucket{hook="access_token",le="${le}"} ${cumulative}`,
      );
    }
    out.push(
      `token_exchange_hook_duration_seconds_sum{hook="access_token"} ${this.#hook.sum}`,
      `token_exchange_hook_duration_seconds_count{hook="access_token"} ${this.#hook.count}`,
    );
    if (this.#droppedSpans !== undefined) {
      const dropped = this.#droppedSpans();
      out.push(
        "# HELP token_exchange_trace_spans_dropped_total Spans not exported, by reason: the export queue was full, or their export failed.",
        "# TYPE token_exchange_trace_spans_dropped_total counter",
        `token_exchange_trace_spans_dropped_total{reason="queue_full"} ${dropped.queueFull}`,
        `token_exchange_trace_spans_dropped_total{reason="export_failed"} ${dropped.exportFailed}`,
      );
    }
    return out.join("\n") + "\n";
  }
}

function labels(s: RouteSeries): string {
  const space = s.route.indexOf(" ");
  const [method, path] = space < 0
    ? ["", s.route]
    : [s.route.slice(0, space), s.route.slice(space + 1)];
  return `listener="${s.listener}",method="${escape(method)}",route="${escape(path)}"`;
}

/** Escapes a label value (`\`, `"` and newlines) per the exposition format. */
function escape(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}
