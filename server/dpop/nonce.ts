import { createHmac } from "node:crypto";
import { base64url, type Clock, type Random } from "@org/shared";
import type { DpopStore } from "../store/dpop.ts";

/**
 * Length of one DPoP nonce window (seconds). A nonce is accepted in its own window and the
 * next, so it lives 5 to 10 minutes; every `/token` answer to a proof carries the current one.
 */
export const NONCE_WINDOW_SECONDS = 300;

/**
 * The DPoP nonce of one time window: base64url HMAC-SHA-256 of the window number under the
 * shared secret. Every instance with the same secret and clock derives the same nonce, so a
 * nonce one instance handed out is good on all of them without a store round trip.
 *
 * @param secret the store's nonce secret
 * @param window `floor(seconds since the epoch / NONCE_WINDOW_SECONDS)`
 * @returns the nonce
 */
export function dpopNonceFor(secret: string, window: number): string {
  return base64url(createHmac("sha256", secret).update(`dpop-nonce:${window}`).digest());
}

/**
 * The server nonces of RFC 9449 §8, derived (never stored) from a secret kept in the store:
 * rotated every {@linkcode NONCE_WINDOW_SECONDS}, agreed on by every instance.
 */
export class DpopNonces {
  #secret: Promise<string> | undefined;
  #cached: { window: number; current: string; previous: string } | undefined;

  /** @param store where the secret is kept @param clock time @param random a new secret */
  constructor(
    private readonly store: DpopStore,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {}

  /** The nonce to hand out now. */
  async current(): Promise<string> {
    return (await this.#window()).current;
  }

  /**
   * Whether `nonce` is the current window's nonce or the previous one's.
   *
   * @param nonce the proof's `nonce` claim
   */
  async accepts(nonce: string): Promise<boolean> {
    const w = await this.#window();
    return nonce === w.current || nonce === w.previous;
  }

  async #window(): Promise<{ window: number; current: string; previous: string }> {
    const window = Math.floor(this.clock.now() / 1000 / NONCE_WINDOW_SECONDS);
    if (this.#cached?.window === window) return this.#cached;
    this.#secret ??= this.store.nonceSecret(base64url(this.random.bytes(32))).catch((err) => {
      this.#secret = undefined;
      throw err;
    });
    const secret = await this.#secret;
    this.#cached = {
      window,
      current: dpopNonceFor(secret, window),
      previous: dpopNonceFor(secret, window - 1),
    };
    return this.#cached;
  }
}
