import type { Clock } from "@org/shared";
import type { RateLimitStore } from "../store/rate_limits.ts";
import { rateLimitKey } from "./client_address.ts";

/** The answer of {@linkcode RateLimiter.take}. */
export type RateDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterSeconds: number };

const ALLOWED: RateDecision = { allowed: true };

/** How often an instance adds its counts to the shared ones and learns the totals (ms). */
export const RATE_SYNC_MS = 1000;

/**
 * A fixed-window request counter per client address, shared by every instance on the store.
 * IPv6 clients are counted per /64 prefix ({@linkcode rateLimitKey}), IPv4 clients per
 * address.
 *
 * Windows are aligned to multiples of `windowMs` on the injected clock. Each instance counts
 * in memory and decides from its count plus the shared totals it last learned; about once a
 * second ({@linkcode RATE_SYNC_MS}) the request that finds the sync due adds this instance's
 * counts to the store ({@linkcode RateLimitStore.add}) and takes the totals back, one round
 * trip for every client seen. So the hot path makes no store round trip, and N instances
 * together allow a client `limit` per window plus at most what the other instances admit
 * within one sync interval. A store that fails is skipped (counted locally until it answers).
 * Memory is bounded by the addresses seen in one window; no timer is needed.
 *
 * @example
 * ```ts
 * import type { Clock } from "@org/shared";
 * import type { Store } from "../store/store.ts";
 *
 * async function admit(clock: Clock, store: Store) {
 *   const rl = new RateLimiter(clock, 1000, 60_000, store.rateLimits);
 *   const d = await rl.take("203.0.113.9");
 *   if (!d.allowed) return d.retryAfterSeconds; // seconds until the window ends
 * }
 * ```
 */
export class RateLimiter {
  #window = -1;
  /** Shared totals per key as last learned (this instance's synced counts included). */
  #known = new Map<string, number>();
  /** This instance's counts per key not yet added to the store. */
  #pending = new Map<string, number>();
  /** Address → its key, for this window: an IPv6 client's /64 is computed once per window. */
  #keys = new Map<string, string>();
  #lastSync = -Infinity;
  #syncing = false;

  /**
   * @param clock the time source (tests advance a `FixedClock`)
   * @param limit requests allowed per client per window
   * @param windowMs the window length in milliseconds
   * @param shared where instances add up their counts; without it, this instance's alone
   */
  constructor(
    private readonly clock: Clock,
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly shared?: RateLimitStore,
  ) {}

  /**
   * Counts one request of `client` and says whether it may proceed.
   *
   * @param client the client address (IPv6 addresses count against their /64)
   * @returns allowed, or refused with the whole seconds until the window ends (at least 1)
   */
  async take(client: string): Promise<RateDecision> {
    const now = this.clock.now();
    const window = Math.floor(now / this.windowMs);
    if (window !== this.#window) {
      this.#window = window;
      this.#known = new Map();
      this.#pending = new Map();
      this.#keys = new Map();
    }
    let key = this.#keys.get(client);
    if (key === undefined) {
      key = rateLimitKey(client);
      this.#keys.set(client, key);
    }
    this.#pending.set(key, (this.#pending.get(key) ?? 0) + 1);
    if (this.shared && !this.#syncing && now - this.#lastSync >= RATE_SYNC_MS) {
      await this.#sync(window, now);
    }
    const n = (this.#known.get(key) ?? 0) + (this.#pending.get(key) ?? 0);
    if (n <= this.limit) return ALLOWED;
    const endsAt = (window + 1) * this.windowMs;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((endsAt - now) / 1000)) };
  }

  /** Adds the pending counts (this request's included) to the store; learns the totals. */
  async #sync(window: number, now: number): Promise<void> {
    this.#syncing = true;
    this.#lastSync = now;
    const flushed = this.#pending;
    this.#pending = new Map();
    try {
      const totals = await this.shared!.add(window, flushed, (window + 1) * this.windowMs);
      if (window !== this.#window) return; // a new window began meanwhile
      for (const [key, total] of totals) this.#known.set(key, total);
    } catch {
      // The store is down: keep counting here; the counts go out with the next sync.
      if (window !== this.#window) return;
      for (const [key, n] of flushed) {
        this.#pending.set(key, (this.#pending.get(key) ?? 0) + n);
      }
    } finally {
      this.#syncing = false;
    }
  }
}
