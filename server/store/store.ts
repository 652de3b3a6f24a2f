/**
 * Everything the token-exchange service stores, composed from one interface per concern (each in
 * its own file beside its `kv_*`/`pg_*` pair), the way fosite's `CoreStorage` composes its
 * handlers' storages. A part of the server declares only the concerns it touches
 * (`Pick<Store, "users" | "sessions">`, or the concern's interface itself). Implementations: Deno
 * KV (`createKvStore` in `./kv_store.ts`) and PostgreSQL (`createPgStore` in `./pg_store.ts`), held
 * to the same behaviour by `./store_conformance_test.ts`.
 *
 * @module
 */
import type { AuditStore } from "./audit.ts";
import type { DpopStore } from "./dpop.ts";
import type { Housekeeping } from "./housekeeping.ts";
import type { KeyRingStore } from "./keys.ts";
import type { LockoutStore } from "./lockout.ts";
import type { NonceStore } from "./nonces.ts";
import type { OutboxStore } from "./outbox.ts";
import type { ProviderTokenStore } from "./provider_tokens.ts";
import type { RateLimitStore } from "./rate_limits.ts";
import type { SessionStore } from "./sessions.ts";
import type { StatsStore, UserStore } from "./users.ts";
import type { WebhookHealthStore } from "./webhook_health.ts";

/** Everything the service stores. */
export interface Store {
  readonly users: UserStore;
  readonly sessions: SessionStore;
  readonly keyring: KeyRingStore;
  readonly stats: StatsStore;
  readonly nonces: NonceStore;
  readonly lockouts: LockoutStore;
  readonly rateLimits: RateLimitStore;
  readonly housekeeping: Housekeeping;
  readonly dpop: DpopStore;
  readonly outbox: OutboxStore;
  readonly audit: AuditStore;
  readonly webhookHealth: WebhookHealthStore;
  readonly providerTokens: ProviderTokenStore;
  /** Resolves when the store answers a read; rejects otherwise (used by `/health`). */
  ping(): Promise<void>;
}
