import type { Clock } from "@org/shared";
import type { KeyRing, KeyRingStore } from "./keys.ts";
import type { Store } from "./store.ts";
import type { StatsStore } from "./users.ts";
import { K } from "./kv_keys.ts";
import { KvUserStore } from "./kv_users.ts";
import { KvSessionStore } from "./kv_sessions.ts";
import { KvNonceStore } from "./kv_nonces.ts";
import { KvLockoutStore } from "./kv_lockout.ts";
import { KvRateLimitStore } from "./kv_rate_limits.ts";
import { KvHousekeeping } from "./kv_housekeeping.ts";
import { KvDpopStore } from "./kv_dpop.ts";
import { KvWebhookHealthStore } from "./kv_webhook_health.ts";
import { KvOutboxStore } from "./kv_outbox.ts";
import { KvAuditStore } from "./kv_audit.ts";
import { KvProviderTokenStore } from "./kv_provider_tokens.ts";

/**
 * The whole {@linkcode Store} on one opened Deno KV (a local file, `:memory:` or a KV Connect
 * URL). The caller opens and closes `kv`; nothing here does I/O until a method is called.
 *
 * @param kv an opened Deno KV
 * @param clock the time source for expiries
 * @returns the store
 *
 * @example
 * ```ts
 * import { systemClock } from "@org/shared";
 *
 * const kv = await Deno.openKv(":memory:");
 * const store = createKvStore(kv, systemClock);
 * await store.ping();
 * kv.close();
 * ```
 */
export function createKvStore(kv: Deno.Kv, clock: Clock): Store {
  return {
    users: new KvUserStore(kv, clock),
    sessions: new KvSessionStore(kv, clock),
    keyring: new KvKeyRingStore(kv),
    stats: new KvStatsStore(kv),
    nonces: new KvNonceStore(kv, clock),
    lockouts: new KvLockoutStore(kv, clock),
    rateLimits: new KvRateLimitStore(kv, clock),
    housekeeping: new KvHousekeeping(kv),
    dpop: new KvDpopStore(kv, clock),
    outbox: new KvOutboxStore(kv, clock),
    audit: new KvAuditStore(kv),
    webhookHealth: new KvWebhookHealthStore(kv),
    providerTokens: new KvProviderTokenStore(kv),
    async ping() {
      await kv.get(["health"]);
    },
  };
}

/** {@linkcode KeyRingStore} on Deno KV: one entry, written with a versionstamp check. */
export class KvKeyRingStore implements KeyRingStore {
  /** @param kv an opened Deno KV */
  constructor(private readonly kv: Deno.Kv) {}

  /** @inheritdoc */
  async load(): Promise<{ ring: KeyRing | undefined; version: string | null }> {
    const e = await this.kv.get<KeyRing>(K.keyring);
    return { ring: e.value ?? undefined, version: e.versionstamp };
  }

  /** @inheritdoc */
  async save(ring: KeyRing, version: string | null): Promise<boolean> {
    const res = await this.kv.atomic().check({ key: K.keyring, versionstamp: version })
      .set(K.keyring, ring).commit();
    return res.ok;
  }
}

/** {@linkcode StatsStore} reading the counters kept by the user and session adapters. */
export class KvStatsStore implements StatsStore {
  /** @param kv an opened Deno KV */
  constructor(private readonly kv: Deno.Kv) {}

  /** @inheritdoc */
  async read(): Promise<{ users: Record<string, number>; sessions: number }> {
    const users: Record<string, number> = {};
    for await (const e of this.kv.list<Deno.KvU64>({ prefix: K.usersCounterPrefix })) {
      users[String(e.key[e.key.length - 1])] = toNumber(e.value);
    }
    const s = await this.kv.get<Deno.KvU64>(K.liveSessions);
    return { users, sessions: s.value ? toNumber(s.value) : 0 };
  }
}

function toNumber(v: Deno.KvU64): number {
  // Counters are decremented by wrapping; read values past 2^63 as negatives (never expected).
  const n = v.value;
  return n >= 1n << 63n ? Number(n - (1n << 64n)) : Number(n);
}
