/**
 * Starting and stopping the service in a process: opening the store (PostgreSQL, migrated on
 * the way; or Deno KV, with the lock that keeps a local KV file to one process), binding the
 * listeners, building the service and its timers.
 * `main.ts` (the CLI) and the tests call {@linkcode startServer}; nothing else calls `Deno.serve`.
 *
 * @module
 */
import { dirname } from "node:path";
import {
  type Clock,
  createJsonLogger,
  cryptoRandom,
  type Logger,
  type Random,
  systemClock,
} from "@org/shared";
import { defaultIssuer } from "./config/resolve.ts";
import type { Config } from "./config/schema.ts";
import type { ServiceDeps } from "./deps.ts";
import { createInternalHandler } from "./endpoints/internal_handler.ts";
import { createPublicHandler } from "./endpoints/public_handler.ts";
import { startingResponse } from "./http/errors.ts";
import { createRequestIds } from "./http/request_id.ts";
import type { RequestInfo } from "./http/router.ts";
import type { Fetch } from "./providers/provider_fetch.ts";
import { buildService, listenersFor } from "./service.ts";
import { createIdFactory } from "./store/ids.ts";
import { createKvStore } from "./store/kv_store.ts";
import { openPostgres, redactUrl, type Sql } from "./store/pg_connection.ts";
import { migrate } from "./store/pg_migrations.ts";
import { createPgStore } from "./store/pg_store.ts";
import type { Store } from "./store/store.ts";
import { intervalScheduler, type ScheduledTask, type Scheduler } from "./scheduler.ts";
import { scheduleWebhookSender, WebhookSender } from "./webhooks/sender.ts";
import { type ScheduledSweep, scheduleSessionSweep } from "./sessions/sweep_schedule.ts";
import { type ScheduledRevocations, scheduleRevocations } from "./providers/apple_revocation.ts";
import { appleProviders } from "./providers/provider_client.ts";
import type { Tracing } from "./telemetry/tracing.ts";
import { tracedStore } from "./telemetry/traced_store.ts";

/** A KV store opened for one process, with the lock that makes a local file single-process. */
export interface OpenedKv {
  readonly kv: Deno.Kv;
  /** Closes KV and releases the lock. */
  close(): void;
}

/**
 * Opens the configured KV. A local file is locked exclusively (`<path>.lock`) first, so a
 * second process on the same file refuses to start instead of failing commits later; only a
 * reader (`readOnly`) opens it beside the process that holds the lock, and only when it exists.
 *
 * @param path `storage.kv_path`: a file, `:memory:` or a KV Connect URL
 * @param readOnly whether the caller only reads (then no lock is taken, and nothing created)
 * @returns the opened KV
 * @throws {Error} with a one-line message when the lock is held, the file is missing for a
 *   reader, or KV cannot be opened
 */
export async function openKv(path: string, readOnly = false): Promise<OpenedKv> {
  const local = path !== ":memory:" && !/^https?:\/\//.test(path);
  let lock: Deno.FsFile | undefined;
  if (local && readOnly) {
    try {
      await Deno.stat(path);
    } catch {
      throw new Error(`no store at ${path} yet; start the service once first`);
    }
  } else if (local) {
    await Deno.mkdir(dirname(path), { recursive: true });
    lock = await Deno.open(`${path}.lock`, { create: true, write: true });
    if (!await lock.tryLock(true)) {
      lock.close();
      throw new Error(
        `another token-exchange process is using ${path}; a local KV file serves one process ` +
          "(stop the other one, or share state through a KV Connect URL)",
      );
    }
  }
  let kv: Deno.Kv;
  try {
    if (typeof Deno.openKv !== "function") {
      throw new Error('Deno KV is not enabled (needs "unstable": ["kv"] or --unstable-kv)');
    }
    kv = await Deno.openKv(path);
  } catch (err) {
    lock?.close();
    throw new Error(`cannot open the KV store at ${path}: ${(err as Error).message}`);
  }
  return {
    kv,
    close() {
      kv.close();
      lock?.close();
    },
  };
}

/** How often instances on PostgreSQL re-read the key ring (ms). */
export const KEY_RELOAD_SHARED_MS = 2_000;
/**
 * How long a rotated key is only published before instances on PostgreSQL sign with it (ms):
 * three re-read periods, so every instance publishes it before any token signed by it exists.
 */
export const KEY_ACTIVATION_SHARED_MS = 3 * KEY_RELOAD_SHARED_MS;

/** A store opened for one process. */
export interface OpenedStore {
  readonly store: Store;
  /** `postgres` for `storage.url`, else `kv`. */
  readonly kind: "postgres" | "kv";
  /** Closes the pool or the KV (and its lock). */
  close(): Promise<void>;
}

/**
 * Opens the configured store: PostgreSQL when `storage.url` is set (connecting once, and
 * applying pending migrations unless the caller only reads), else the KV at `storage.kv_path`
 * (locked, unless the caller only reads: see {@linkcode openKv}).
 *
 * @param storage the `[storage]` config
 * @param clock the time source of the store
 * @param options `readOnly`: the caller only reads (a CLI command beside a running server), so
 *   neither the schema nor the lock is touched; `log`: where a contained PostgreSQL client
 *   fault is reported
 * @returns the opened store
 * @throws {Error} with a one-line message (never the password) when it cannot be opened
 */
export async function openStore(
  storage: Config["storage"],
  clock: Clock,
  options: { readOnly?: boolean; log?: Logger } = {},
): Promise<OpenedStore> {
  if (storage.url === undefined) {
    const opened = await openKv(storage.kv_path, options.readOnly);
    return {
      store: createKvStore(opened.kv, clock),
      kind: "kv",
      close: () => Promise.resolve(opened.close()),
    };
  }
  const sql = await connectPostgres(storage, options.log);
  try {
    if (!options.readOnly) await migrate(sql);
    else await sql`select 1`;
  } catch (err) {
    await sql.end({ timeout: 1 });
    throw new Error(
      `cannot use the PostgreSQL store at ${redactUrl(storage.url)}: ${(err as Error).message}`,
    );
  }
  return {
    store: createPgStore(sql, clock),
    kind: "postgres",
    close: () => sql.end({ timeout: 5 }),
  };
}

/**
 * The PostgreSQL pool of `[storage]` (nothing connects yet); for `serve --migrate-only` and
 * {@linkcode openStore}. A contained client fault (the pool replaced, see `openPostgres`) is
 * logged to `log` as an error.
 */
export async function connectPostgres(
  storage: Config["storage"],
  log?: Logger,
): Promise<Sql> {
  const tlsCa = storage.tls_ca_path === undefined
    ? undefined
    : await Deno.readTextFile(storage.tls_ca_path);
  return openPostgres({
    url: storage.url!,
    password: storage.password,
    poolSize: storage.pool_size,
    tlsCa,
    onFault: (fault, err) => log?.error("PostgreSQL client fault contained", { fault, err }),
  });
}

/** Options for {@linkcode startServer}; everything but `config` defaults to the real world. */
export interface StartOptions {
  readonly config: Config;
  /**
   * An already opened KV (tests pass `:memory:`); default: opens the configured store
   * (`storage.url`, else `storage.kv_path`).
   */
  readonly kv?: Deno.Kv;
  readonly clock?: Clock;
  readonly random?: Random;
  readonly log?: Logger;
  readonly fetch?: Fetch;
  /**
   * Repeats the key-ring re-read, the hourly housekeeping sweep and the provider-token
   * revocation queue's runs; default `setInterval`
   * (tests trigger runs).
   */
  readonly scheduler?: Scheduler;
  /**
   * Tracing, when on (`main.ts` passes it for `OTEL_TRACES_EXPORTER=otlp` or `OTEL_DENO=true`):
   * the store, the provider calls,
   * the request spans and the webhook deliveries are then traced. Default: off.
   */
  readonly tracing?: Tracing;
  /** How operators run this program, for the console's hints (`main.ts` passes it). */
  readonly cli?: string;
}

/** A started service. */
export interface RunningServer extends AsyncDisposable {
  /** The public listener's URL, when it runs. */
  readonly publicUrl: string | undefined;
  /** The internal listener's URL, when it runs. */
  readonly internalUrl: string | undefined;
  /** The issuer in use. */
  readonly issuer: string;
  readonly deps: ServiceDeps;
  /**
   * The webhook sender (runs on the scheduler every second), or `undefined` when no
   * `[[webhooks.endpoints]]` is configured.
   */
  readonly webhooks: WebhookSender | undefined;
  /** Stops accepting, finishes in-flight requests, stops timers, closes the store it opened. */
  shutdown(): Promise<void>;
}

/**
 * Starts the listeners `config` asks for. Port 0 picks a free port; without `server.issuer`
 * the issuer is the public listener's bound address.
 *
 * @param options config and injectable clock, random, logger, fetch and KV
 * @returns the running server
 *
 * @example
 * ```ts
 * import type { Config } from "./config/schema.ts";
 *
 * async function health(config: Config) {
 *   await using server = await startServer({ config, kv: await Deno.openKv(":memory:") });
 *   return await fetch(`${server.publicUrl}/health`);
 * }
 * ```
 */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { config } = options;
  const log = options.log ?? createJsonLogger();
  const clock = options.clock ?? systemClock;
  const opened = options.kv ? undefined : await openStore(config.storage, clock, { log });
  const { tracing } = options;
  const plain = options.kv ? createKvStore(options.kv, clock) : opened!.store;
  const store = tracing === undefined
    ? plain
    : tracedStore(plain, tracing, opened?.kind === "postgres" ? "postgresql" : "deno_kv");
  const listeners = listenersFor(config);
  const servers: Deno.HttpServer<Deno.NetAddr>[] = [];
  const random = options.random ?? cryptoRandom;
  // Until the service is built, every request gets the 503 "starting" answer (with its id).
  let handler: (req: Request, info: RequestInfo) => Promise<Response> = createRequestIds(
    log,
    createIdFactory(clock, random).ulid,
  ).wrap(() => Promise.resolve(startingResponse()));
  let internalHandler = handler;
  let stopReload: (() => void) | undefined;
  let sweep: ScheduledSweep | undefined;
  let webhooks: WebhookSender | undefined;
  let webhookJob: ScheduledTask | undefined;
  let revocations: ScheduledRevocations | undefined;
  // The one shutdown sequence, for `shutdown()` and for a start that failed half-way: it
  // stops whatever was started by then.
  const stopAll = async () => {
    stopReload?.();
    // Each stop waits for its run under way, so the store never closes under it.
    await sweep?.stop();
    await webhookJob?.stop();
    await revocations?.stop();
    await Promise.all(servers.map((s) => s.shutdown()));
    await opened?.close();
  };
  try {
    const serve = (host: string, port: number, h: () => typeof handler) =>
      Deno.serve({ hostname: host, port, onListen: () => {} }, (req, info) => h()(req, info));
    const pub = listeners.public
      ? serve(config.server.host, config.server.port, () => handler)
      : undefined;
    const internal = listeners.internal
      ? serve(config.internal_api.host, config.internal_api.port, () => internalHandler)
      : undefined;
    if (pub) servers.push(pub);
    if (internal) servers.push(internal);
    const addrUrl = (s: Deno.HttpServer<Deno.NetAddr> | undefined) =>
      s ? defaultIssuer(s.addr.hostname, s.addr.port) : undefined;
    const publicUrl = addrUrl(pub);
    const internalUrl = addrUrl(internal);
    const issuer = config.server.issuer ??
      publicUrl ?? defaultIssuer(config.server.host, config.server.port);
    const deps = await buildService(config, issuer, {
      store,
      clock,
      random,
      log,
      fetch: options.fetch ?? fetch,
      readKeyFile: (path) => Deno.readTextFile(path),
      keyActivationDelayMs: opened?.kind === "postgres" ? KEY_ACTIVATION_SHARED_MS : 0,
      tracing,
      cli: options.cli,
    });
    handler = createPublicHandler(deps);
    internalHandler = createInternalHandler(deps, listeners.internalApi);
    if (listeners.internal && !listeners.internalApi) {
      log.warn(
        'server.role is "admin" but internal_api.enabled is false: the internal listener ' +
          "serves only /health; set internal_api.enabled = true to serve the internal API",
      );
    }
    // Pick up a rotation made through another instance or `keys rotate` on a shared store.
    // Instances on one PostgreSQL look often (one row), so all of them publish a rotated key
    // before any signs with it (KEY_ACTIVATION_SHARED_MS); a remote KV is read once a minute.
    const scheduler = options.scheduler ?? intervalScheduler;
    stopReload = scheduler.every(
      opened?.kind === "postgres" ? KEY_RELOAD_SHARED_MS : 60_000,
      () => {
        deps.keys.reload().catch((err) => log.warn("key ring reload failed", { err }));
      },
    );
    // Keeps `sessions.live` exact without an operator cron job (see kv_housekeeping.ts).
    sweep = scheduleSessionSweep(deps, scheduler);
    if (config.webhooks.endpoints.length > 0) {
      webhooks = new WebhookSender({
        ...deps,
        endpoints: config.webhooks.endpoints,
        retentionMs: config.webhooks.retention * 1000,
        owner: createIdFactory(clock, random).ulid(),
      });
      webhookJob = scheduleWebhookSender(webhooks, scheduler, log);
    }
    // Deleted users' Apple tokens: every instance works the shared queue (jobs are leased).
    // Only Apple tokens are kept, so without an Apple provider there is no queue to poll.
    if (appleProviders(deps.providers).length > 0) {
      revocations = scheduleRevocations(deps, scheduler);
    }
    let stopped: Promise<void> | undefined;
    const shutdown = () => stopped ??= stopAll();
    return {
      publicUrl,
      internalUrl,
      issuer,
      deps,
      webhooks,
      shutdown,
      [Symbol.asyncDispose]: shutdown,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
