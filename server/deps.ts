import type { Clock, Logger, Random } from "@org/shared";
import type { Config } from "./config/schema.ts";
import type { KeyManager } from "./keys/key_manager.ts";
import type { Metrics } from "./metrics/metrics.ts";
import type { ProviderClient } from "./providers/provider_client.ts";
import type { Store } from "./store/store.ts";
import type { Tracing } from "./telemetry/tracing.ts";
import type { WebhookEvents } from "./webhooks/events.ts";
import type { AuditTrail } from "./audit/audit_trail.ts";
import type { AccessTokenHook } from "./hooks/access_token_hook.ts";
import type { SessionUse } from "./sessions/session_use.ts";
import type { DpopNonces } from "./dpop/nonce.ts";

/**
 * Everything request handling depends on, built once per process by `buildService` and
 * passed to handlers and grants. Tests build it with a `:memory:` KV, a `FixedClock` and a
 * `seededRandom`.
 */
export interface ServiceDeps {
  /** The resolved config; `config.server.issuer` is always set here. */
  readonly config: Config & { readonly server: Config["server"] & { readonly issuer: string } };
  readonly store: Store;
  readonly keys: KeyManager;
  /** Configured upstream providers by name. */
  readonly providers: ReadonlyMap<string, ProviderClient>;
  readonly clock: Clock;
  readonly random: Random;
  readonly log: Logger;
  /** This process's counters and histograms (`GET /internal/metrics`). */
  readonly metrics: Metrics;
  /**
   * Builds what a security event commits: its webhook messages (none when no endpoint
   * subscribed) and its audit record.
   */
  readonly webhooks: WebhookEvents;
  /** Builds the audit records of operator actions (`audit.retention`). */
  readonly audit: AuditTrail;
  /** Records when sessions were last used (`GET /sessions`), coarsely. */
  readonly sessionUse: SessionUse;
  /**
   * The DPoP server nonces (RFC 9449 §8), one cache per process: `/token` hands them out and
   * every route that checks a proof (`/token`, `/sessions`) accepts them, reading the secret
   * once for all of them.
   */
  readonly dpopNonces: DpopNonces;
  /** Set when `[hooks.access_token]` is configured: called before every access token is signed. */
  readonly accessTokenHook?: AccessTokenHook | undefined;
  /**
   * Set only when tracing is on (`OTEL_TRACES_EXPORTER=otlp` or `OTEL_DENO=true`): the request
   * spans are then named and the store and provider calls traced. Unset, nothing on any path
   * makes a span.
   */
  readonly tracing?: Tracing | undefined;
  /**
   * How operators run this program's commands (`deno run -A server/main.ts` from a checkout,
   * `token-exchange` as a release binary; `server/invocation.ts`), for the console's hints.
   * Unset (tests, embedders): the checkout's form.
   */
  readonly cli?: string | undefined;
}

/** The program's command when {@linkcode ServiceDeps.cli} is unset: run from a checkout. */
export const DEFAULT_CLI = "deno run -A server/main.ts";

/**
 * The parts `K` of {@linkcode ServiceDeps} with only the store concerns `S`: how a part of the
 * server declares what it depends on and which stores it really touches (a grant that rotates
 * refresh tokens takes `DepsWith<"clock", "sessions">`, not the whole {@linkcode Store}).
 *
 * @example Declaring a narrow dependency
 * ```ts
 * import type { DepsWith } from "./deps.ts";
 *
 * async function userExists(deps: DepsWith<"log", "users">, id: string): Promise<boolean> {
 *   return (await deps.store.users.get(id)) !== undefined;
 * }
 * ```
 */
export type DepsWith<K extends Exclude<keyof ServiceDeps, "store">, S extends keyof Store> =
  & Pick<ServiceDeps, K>
  & { readonly store: Pick<Store, S> };
