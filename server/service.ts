import type { Clock, Logger, Random } from "@org/shared";
import type { Config } from "./config/schema.ts";
import type { ServiceDeps } from "./deps.ts";
import { type KeyManagerOptions, type KeySource, loadKeyManager } from "./keys/key_manager.ts";
import { createKeySealer } from "./keys/key_seal.ts";
import { createProviderClients } from "./providers/provider_client.ts";
import type { Fetch } from "./providers/provider_fetch.ts";
import type { Store } from "./store/store.ts";
import type { Tracing } from "./telemetry/tracing.ts";
import { Metrics } from "./metrics/metrics.ts";
import { WebhookEvents } from "./webhooks/events.ts";
import { AuditTrail } from "./audit/audit_trail.ts";
import { AccessTokenHook } from "./hooks/access_token_hook.ts";
import { SessionUse } from "./sessions/session_use.ts";
import { DpopNonces } from "./dpop/nonce.ts";

/** What the process provides to the service: the opened store and the outside world. */
export interface Runtime {
  readonly store: Store;
  readonly clock: Clock;
  readonly random: Random;
  readonly log: Logger;
  readonly fetch: Fetch;
  /** Reads a key file (PEM text). */
  readonly readKeyFile: (path: string) => Promise<string>;
  /**
   * How long a rotated key is only published before it signs (ms; default 0): longer than the
   * key-ring re-read period when instances share the store (see `KeyManagerOptions`).
   */
  readonly keyActivationDelayMs?: number;
  /** Set when tracing is on (the store is then already traced by the caller). */
  readonly tracing?: Tracing | undefined;
  /** How operators run this program (see `ServiceDeps.cli`). */
  readonly cli?: string | undefined;
}

/** Which listeners a process runs for its config. */
export interface Listeners {
  readonly public: boolean;
  readonly internal: boolean;
  /** Whether the internal listener serves the `/internal/*` routes (else only `/health`). */
  readonly internalApi: boolean;
}

/**
 * Decides the listeners: the public one unless `server.role` is `admin`; the internal API
 * only when the role is `admin` or `all` AND `internal_api.enabled` is true. `admin` with the
 * API disabled still runs the internal listener, serving only `/health`, so the process has
 * a health check (the caller logs a warning: such a process serves nothing else).
 *
 * @param config the resolved config
 * @returns which listeners to start
 */
export function listenersFor(config: Config): Listeners {
  const internalApi = config.server.role !== "public" && config.internal_api.enabled;
  return {
    public: config.server.role !== "admin",
    internal: internalApi || config.server.role === "admin",
    internalApi,
  };
}

/**
 * The key-manager options for a config: file key when `keys.private_key_path` is set, else a
 * key kept in the store (sealed under `keys.encryption_key` when set); replaced keys stay
 * published for the access-token TTL plus a minute.
 */
export async function keyManagerOptions(
  config: Config,
  runtime: Omit<Runtime, "fetch" | "random">,
): Promise<KeyManagerOptions> {
  const source: KeySource = config.keys.private_key_path === undefined ? { kind: "store" } : {
    kind: "file",
    pem: await runtime.readKeyFile(config.keys.private_key_path),
    kid: config.keys.kid,
  };
  return {
    store: runtime.store.keyring,
    source,
    clock: runtime.clock,
    retireAfterMs: (config.token.access_token_ttl + 60) * 1000,
    log: runtime.log,
    ...(config.keys.encryption_key === undefined
      ? {}
      : { sealer: createKeySealer(config.keys.encryption_key) }),
    activationDelayMs: runtime.keyActivationDelayMs ?? 0,
  };
}

/**
 * Builds the {@linkcode ServiceDeps} of a process: the store, the key manager (keys loaded
 * and imported once), the provider clients and the process's one DPoP nonce cache.
 *
 * @param config the resolved config
 * @param issuer the issuer to use (`server.issuer`, or derived from the bound address)
 * @param runtime the opened store and injected clock, random, logger, fetch and file reader
 * @returns the deps for the handlers
 */
export async function buildService(
  config: Config,
  issuer: string,
  runtime: Runtime,
): Promise<ServiceDeps> {
  const { store } = runtime;
  const keys = await loadKeyManager(await keyManagerOptions(config, runtime));
  const providers = await createProviderClients(config.providers, runtime);
  const audit = new AuditTrail(config.audit.retention, runtime.clock, runtime.random);
  const metrics = new Metrics();
  if (runtime.tracing?.droppedSpans) metrics.droppedSpansFrom(runtime.tracing.droppedSpans);
  const hookConfig = config.hooks.access_token;
  return {
    config: { ...config, server: { ...config.server, issuer } },
    store,
    keys,
    providers,
    clock: runtime.clock,
    random: runtime.random,
    log: runtime.log,
    metrics,
    webhooks: new WebhookEvents(config.webhooks.endpoints, runtime.clock, runtime.random, audit),
    audit,
    tracing: runtime.tracing,
    cli: runtime.cli,
    sessionUse: new SessionUse(store.sessions, runtime.log),
    dpopNonces: new DpopNonces(store.dpop, runtime.clock, runtime.random),
    ...(hookConfig === undefined ? {} : {
      accessTokenHook: new AccessTokenHook(hookConfig, { ...runtime, metrics }),
    }),
  };
}
