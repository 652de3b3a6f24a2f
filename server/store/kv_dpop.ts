import type { Clock } from "@org/shared";
import type { DpopStore } from "./dpop.ts";
import { expireIn } from "./kv_keys.ts";

/**
 * Key layout of the DPoP entries. Proof marks expire through `expireIn` alone (no sweep
 * needed), so they live beside their only adapter.
 */
export const DPOP_KEYS = {
  proof: (id: string): Deno.KvKey => ["dpop_proofs", id],
  nonceSecret: ["dpop", "nonce_secret"] as Deno.KvKey,
} as const;

/** A mark stored for one used proof (also written by a rotation's commit, `kv_rotation.ts`). */
export interface ProofMarkRecord {
  readonly expires_at: number;
}

/**
 * {@linkcode DpopStore} on Deno KV. A mark's expiry is decided by its stored `expires_at`
 * against the injected clock; `expireIn` only reclaims the space.
 */
export class KvDpopStore implements DpopStore {
  /** @param kv an opened Deno KV @param clock the time source for expiries */
  constructor(private readonly kv: Deno.Kv, private readonly clock: Clock) {}

  /** @inheritdoc */
  async markProofUsed(id: string, expiresAt: number): Promise<boolean> {
    const key = DPOP_KEYS.proof(id);
    const now = this.clock.now();
    const ttl = { expireIn: expireIn(expiresAt, now) };
    // The common case, a fresh proof: one commit that succeeds only where no mark exists.
    const fresh = await this.kv.atomic().check({ key, versionstamp: null })
      .set(key, { expires_at: expiresAt } satisfies ProofMarkRecord, ttl).commit();
    if (fresh.ok) return true;
    // A mark exists; only one past its end (KV deletes lazily) may be taken over.
    const old = await this.kv.get<ProofMarkRecord>(key);
    if (old.value !== null && old.value.expires_at > now) return false;
    const res = await this.kv.atomic().check(old)
      .set(key, { expires_at: expiresAt } satisfies ProofMarkRecord, ttl).commit();
    return res.ok;
  }

  /** @inheritdoc */
  async nonceSecret(candidate: string): Promise<string> {
    const key = DPOP_KEYS.nonceSecret;
    await this.kv.atomic().check({ key, versionstamp: null }).set(key, candidate).commit();
    const stored = await this.kv.get<string>(key);
    if (stored.value === null) throw new Error("the DPoP nonce secret vanished");
    return stored.value;
  }
}
