import { rateLimitKey } from "./client_address.ts";

/**
 * A cap on the requests one client address has in progress at once, in process memory. With
 * the request-body deadline it bounds what a slow client can hold: at most `limit` half-read
 * bodies per address (IPv6 clients per /64, like the rate limit), however many connections it
 * opens. Entries disappear when their last request ends, so memory follows the clients in
 * flight, not the clients seen.
 *
 * @example
 * ```ts
 * import { ConcurrencyLimiter } from "./concurrency_limiter.ts";
 *
 * const slots = new ConcurrencyLimiter(1);
 * const held = slots.enter("203.0.113.9");
 * if (held === undefined) throw new Error("the first request gets a slot");
 * if (slots.enter("203.0.113.9") !== undefined) throw new Error("a second waits its turn");
 * slots.leave(held);
 * ```
 */
export class ConcurrencyLimiter {
  #inFlight = new Map<string, number>();

  /** @param limit requests one client may have in progress at once */
  constructor(private readonly limit: number) {}

  /**
   * Takes a slot for `client`.
   *
   * @param client the client address
   * @returns the key to hand to {@linkcode ConcurrencyLimiter.leave}, or `undefined` when
   *   the client already has `limit` requests in progress (nothing was taken)
   */
  enter(client: string): string | undefined {
    const key = rateLimitKey(client);
    const n = this.#inFlight.get(key) ?? 0;
    if (n >= this.limit) return undefined;
    this.#inFlight.set(key, n + 1);
    return key;
  }

  /** Gives back a slot taken by {@linkcode ConcurrencyLimiter.enter}. */
  leave(key: string): void {
    const n = (this.#inFlight.get(key) ?? 1) - 1;
    if (n <= 0) this.#inFlight.delete(key);
    else this.#inFlight.set(key, n);
  }

  /** Requests in progress for `client` (for tests and metrics). */
  inFlight(client: string): number {
    return this.#inFlight.get(rateLimitKey(client)) ?? 0;
  }
}
