// deno-lint-ignore-file no-console -- benchmarks print their figures
/**
 * What the refresh benchmarks share: seeding sessions, driving one load round from the worker
 * thread (`refresh_load_worker.ts`), and reading and printing its figures.
 *
 * @module
 */
import { createJsonLogger } from "@org/shared";
import { resolveConfig } from "../../server/config/resolve.ts";
import type { ServiceDeps } from "../../server/deps.ts";
import { startSession } from "../../server/grants/issue_tokens.ts";
import { startServer } from "../../server/serve.ts";
import { createIdFactory } from "../../server/store/ids.ts";
import type { Tracing } from "../../server/telemetry/tracing.ts";
import { benchUser } from "./bench_user.ts";
import type { LoadRequest, LoadResult } from "./refresh_load_worker.ts";
import { threadCpuUs, threadSnapshot } from "./thread_cpu.ts";
import { percentile } from "./report.ts";

/**
 * The `parseArgs` options of the load every refresh benchmark drives: `--clients N` (64),
 * `--per-client N` rotations per client per round (400), `--rounds N` (3).
 */
export const LOAD_OPTIONS = {
  clients: { type: "string", default: "64" },
  "per-client": { type: "string", default: "400" },
  rounds: { type: "string", default: "3" },
} as const;

/** Rotations per client before a measured round (JIT, connections, caches). */
export const WARMUP_PER_CLIENT = 25;

/** The latency figures of one load round (and its first error, printed). */
export function roundFigures(
  r: LoadResult,
): Record<"count" | "errors" | "rate" | "p50" | "p99", number> {
  if (r.firstError) console.error(`first error: ${r.firstError}`);
  const sorted = r.latenciesMs.sort((a, b) => a - b);
  const n = sorted.length;
  return {
    count: n,
    errors: r.errors,
    rate: n / (r.elapsedMs / 1000),
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
  };
}

/** Creates `n` users, each with one session; returns their refresh tokens. */
export async function seedSessions(deps: ServiceDeps, n: number): Promise<string[]> {
  const ids = createIdFactory(deps.clock, deps.random);
  const tokens: string[] = [];
  for (let i = 0; i < n; i++) {
    const user = benchUser(ids, deps.clock.now(), `user-${i}`, i);
    await deps.store.users.create(user);
    tokens.push((await startSession(deps, user, ids.next("ses"))).refresh_token!);
  }
  return tokens;
}

/** Runs one load; `cpu` is the per-thread CPU from just before the start to the last answer. */
export function drive(
  req: LoadRequest,
): Promise<LoadResult & { cpu: ReturnType<typeof threadCpuUs> }> {
  const before = threadSnapshot();
  const worker = new Worker(new URL("./refresh_load_worker.ts", import.meta.url), {
    type: "module",
  });
  return new Promise<LoadResult & { cpu: ReturnType<typeof threadCpuUs> }>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<LoadResult>) =>
      // Before terminate: the worker's thread is gone afterwards.
      resolve({ ...e.data, cpu: threadCpuUs(before, threadSnapshot(), String(Deno.pid)) });
    worker.onerror = (e) => {
      e.preventDefault();
      reject(new Error(e.message));
    };
    worker.postMessage(req);
  }).finally(() => worker.terminate());
}

/** A running service with seeded sessions, warmed up: one measured load round per call. */
export interface SeededServer {
  /** Drives round `i` (1-based) on its own fresh chains, `perClient` rotations per client. */
  round(i: number): ReturnType<typeof drive>;
  /** Shuts the service down and closes its KV. */
  close(): Promise<void>;
}

/**
 * Starts the service on port 0 with an in-memory KV and `extra` config (resolved against `env`),
 * a rate limit the run cannot exhaust (all clients share one loopback address), sessions for
 * `rounds` rounds plus a warm-up of `clients` chains each, and runs the warm-up.
 */
export async function startSeededServer(options: {
  readonly extra?: Readonly<Record<string, unknown>>;
  readonly env?: Readonly<Record<string, string>>;
  readonly tracing?: Tracing;
  readonly clients: number;
  readonly perClient: number;
  readonly rounds: number;
}): Promise<SeededServer> {
  const { clients, perClient } = options;
  const resolved = resolveConfig({
    server: { port: 0 },
    storage: { kv_path: ":memory:" },
    rate_limit: { requests: 1_000_000_000 },
    ...options.extra,
  }, options.env ?? {});
  if ("errors" in resolved) throw new Error(JSON.stringify(resolved.errors));
  const kv = await Deno.openKv(":memory:");
  const server = await startServer({
    config: resolved.config,
    kv,
    log: createJsonLogger({ level: "warn" }),
    ...(options.tracing ? { tracing: options.tracing } : {}),
  });
  const ports = [Number(new URL(server.publicUrl!).port)];
  const tokens = await seedSessions(server.deps, (options.rounds + 1) * clients);
  const chains = (i: number) => tokens.slice(i * clients, (i + 1) * clients);
  await drive({ ports, tokens: chains(0), perClient: WARMUP_PER_CLIENT });
  return {
    round: (i) => drive({ ports, tokens: chains(i), perClient }),
    async close() {
      await server.shutdown();
      kv.close();
    },
  };
}
