import type { Clock } from "@org/shared";
import type { AssertionMark, NonceRecord, NonceStore, RedeemOutcome } from "./nonces.ts";
import { expireIn } from "./kv_keys.ts";

/**
 * Key layout of the nonce and assertion-marker entries. Both expire through `expireIn` alone
 * (no sweep needed), so they live beside their only adapter.
 */
export const NONCE_KEYS = {
  nonce: (hash: string): Deno.KvKey => ["nonces", hash],
  assertion: (issuer: string, id: string): Deno.KvKey => ["id_tokens_used", issuer, id],
} as const;

/** A redemption that keeps losing races this often is a bug, not contention. */
const MAX_ATTEMPTS = 8;

/**
 * {@linkcode NonceStore} on Deno KV. Expiry is decided by the stored `expires_at` against the
 * injected clock; `expireIn` only reclaims the space (KV deletes lazily and on real time).
 */
export class KvNonceStore implements NonceStore {
  /** @param kv an opened Deno KV @param clock the time source for expiries */
  constructor(private readonly kv: Deno.Kv, private readonly clock: Clock) {}

  /** @inheritdoc */
  async put(record: NonceRecord): Promise<void> {
    const key = NONCE_KEYS.nonce(record.hash);
    const res = await this.kv.atomic().check({ key, versionstamp: null })
      .set(key, record, { expireIn: expireIn(record.expires_at, this.clock.now()) })
      .commit();
    // 256 random bits: a clash means a broken random source.
    if (!res.ok) throw new Error("nonce already exists");
  }

  /** @inheritdoc */
  async redeem(
    nonceHashes: readonly string[],
    assertion: AssertionMark,
  ): Promise<RedeemOutcome> {
    const markKey = NONCE_KEYS.assertion(assertion.issuer, assertion.id);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const now = this.clock.now();
      const mark = await this.kv.get<AssertionMark>(markKey);
      if (mark.value !== null && mark.value.expires_at > now) return "assertion_used";
      const entries = await this.kv.getMany<NonceRecord[]>(nonceHashes.map(NONCE_KEYS.nonce));
      const nonce = entries.find((e): e is Deno.KvEntry<NonceRecord> => e.value !== null);
      if (!nonce) return "nonce_unknown";
      if (nonce.value.expires_at <= now) {
        await this.kv.atomic().check(nonce).delete(nonce.key).commit();
        return "nonce_expired";
      }
      // Consuming the nonce and marking the token commit together, or neither happens.
      const res = await this.kv.atomic()
        .check(nonce)
        .check(mark)
        .delete(nonce.key)
        .set(markKey, assertion, { expireIn: expireIn(assertion.expires_at, now) })
        .commit();
      if (res.ok) return "redeemed";
    }
    throw new Error("nonce redemption kept losing races");
  }
}
