import type { Clock } from "@org/shared";
import { rateLimitKey } from "./client_address.ts";

/** The answer of {@linkcode RateLimiter.take}. */
export type RateDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterSeconds: number };

const ALLOWED: RateDecision = { allowed: true };

/**
 * A fixed-window request counter per client address, in process memory. IPv6 clients are
 * counted per /64 prefix ({@linkcode rateLimitKey}), IPv4 clients per address.
 *
 * Windows are aligned to multiples of `windowMs` on the injected clock; when a request arrives
 * in a new window every count is dropped at once, so memory is bounded by the addresses seen
 * in one window and no timer is needed. Each instance counts on its own: behind a load
 * balancer spreading over N instances a client gets up to N × `limit` per window. This keeps
 * the hot path free of storage round trips (the refresh path is benchmarked at thousands of
 * requests per second); the operator lockout, which must be shared, lives in KV instead.
 *
 * @example
 * ```ts
 * const rl = new RateLimiter(clock, 1000, 60_000);
 * const d = rl.take("203.0.113.9");
 * if (!d.allowed) d.retryAfterSeconds; // seconds until the window ends
 * ```
 */
export class RateLimiter {
  #window = -1;
  #counts = new Map<string, number>();
  /** Address → its key, for this window: an IPv6 client's /64 is computed once per window. */
  #keys = new Map<string, string>();

  /**
   * @param clock the time source (tests advance a `FixedClock`)
   * @param limit requests allowed per client per window
   * @param windowMs the window length in milliseconds
   */
  constructor(
    private readonly clock: Clock,
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /**
   * Counts one request of `client` and says whether it may proceed.
   *
   * @param client the client address (IPv6 addresses count against their /64)
   * @returns allowed, or refused with the whole seconds until the window ends (at least 1)
   */
  take(client: string): RateDecision {
    const now = this.clock.now();
    const window = Math.floor(now / this.windowMs);
    if (window !== this.#window) {
      this.#window = window;
      this.#counts = new Map();
      this.#keys = new Map();
    }
    let key = this.#keys.get(client);
    if (key === undefined) {
      key = rateLimitKey(client);
      this.#keys.set(client, key);
    }
    const n = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, n);
    if (n <= this.limit) return ALLOWED;
    const endsAt = (window + 1) * this.windowMs;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((endsAt - now) / 1000)) };
  }
}
