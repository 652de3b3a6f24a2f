// deno-lint-ignore-file no-console -- a benchmark prints its figures
/**
 * What the custom claims hook (`[hooks.access_token]`) costs the refresh path, beside the
 * refresh without it, in one run.
 *
 * Two variants of the real service (`startServer`, a `:memory:` KV, loopback), driven by the
 * same load as `token_refresh.ts` (64 keep-alive clients in a worker thread, each following its
 * own rotation chain), their rounds interleaved so a busy moment of this shared machine falls on
 * both alike:
 *
 * - `off`: no hook: today's refresh.
 * - `hook`: every refresh first calls a loopback hook (`support/hook_worker.ts`, its own thread)
 *   that answers `{"claims": {…}}` at once; the token carries its claims. Aim: a rate less
 *   than 20 % below `off`.
 *
 * Prints `name: value unit` lines: per variant the median rate, p50, p99 and the server
 * thread's CPU per refresh; then the rate and CPU change of `hook` against `off`.
 *
 * Options: `--clients N` (64), `--per-client N` (400), `--rounds N` (3).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { createJsonLogger } from "@org/shared";
import { resolveConfig } from "../server/config/resolve.ts";
import { startServer } from "../server/serve.ts";
import {
  drive,
  line,
  LOAD_OPTIONS,
  median,
  roundFigures,
  seedSessions,
  WARMUP_PER_CLIENT,
} from "./support/refresh_rounds.ts";

const { values } = parseArgs({ args: Deno.args, options: LOAD_OPTIONS });
const CLIENTS = Number(values.clients);
const PER_CLIENT = Number(values["per-client"]);
const ROUNDS = Number(values.rounds);
const SECRET = "whsec_" + btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));

/** One measured round of a variant. */
interface Round {
  readonly rate: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  /** Server-thread CPU per refresh (µs). */
  readonly cpu: number;
}

interface Variant {
  round(i: number): Promise<Round>;
  close(): Promise<void>;
}

async function startVariant(hookUrl?: string): Promise<Variant> {
  const resolved = resolveConfig({
    server: { port: 0 },
    storage: { kv_path: ":memory:" },
    // All clients share one loopback address: a budget the run cannot exhaust.
    rate_limit: { requests: 1_000_000_000 },
    ...(hookUrl === undefined ? {} : { hooks: { access_token: { url: hookUrl, secret: "${H}" } } }),
  }, { H: SECRET });
  if ("errors" in resolved) throw new Error(JSON.stringify(resolved.errors));
  const kv = await Deno.openKv(":memory:");
  const server = await startServer({
    config: resolved.config,
    kv,
    log: createJsonLogger({ level: "warn" }),
  });
  const ports = [Number(new URL(server.publicUrl!).port)];
  const tokens = await seedSessions(server.deps, (ROUNDS + 1) * CLIENTS);
  const chains = (i: number) => tokens.slice(i * CLIENTS, (i + 1) * CLIENTS);
  await drive({ ports, tokens: chains(0), perClient: WARMUP_PER_CLIENT });
  return {
    async round(i) {
      const r = await drive({ ports, tokens: chains(i), perClient: PER_CLIENT });
      const f = roundFigures(r);
      return { rate: f.rate, p50: f.p50, p99: f.p99, errors: f.errors, cpu: r.cpu.main / f.count };
    },
    async close() {
      await server.shutdown();
      kv.close();
    },
  };
}

/** Starts the hook's thread; resolves with it and its URL once it listens. */
function startHook(): Promise<{ worker: Worker; url: string }> {
  const worker = new Worker(new URL("./support/hook_worker.ts", import.meta.url), {
    type: "module",
  });
  return new Promise((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<number>) =>
      resolve({ worker, url: `http://127.0.0.1:${e.data}/hooks/access-token` });
    worker.onerror = (e) => {
      e.preventDefault();
      reject(new Error(e.message));
    };
  });
}

async function main(): Promise<void> {
  console.log(`# ${CLIENTS} clients x ${PER_CLIENT} rotations x ${ROUNDS} rounds, :memory: KV`);
  const hook = await startHook();
  const variants: [string, Variant][] = [
    ["off", await startVariant()],
    ["hook", await startVariant(hook.url)],
  ];
  const rounds = new Map<string, Round[]>(variants.map(([name]) => [name, []]));
  try {
    for (let i = 1; i <= ROUNDS; i++) {
      const order = i % 2 === 0 ? variants : [...variants].reverse();
      for (const [name, v] of order) {
        const r = await v.round(i);
        rounds.get(name)!.push(r);
        console.log(
          `# round ${i} ${name}: ${r.rate.toFixed(0)} refreshes/s, p99 ${r.p99.toFixed(2)} ms, ` +
            `server thread ${r.cpu.toFixed(1)} µs/refresh`,
        );
      }
    }
  } finally {
    for (const [, v] of variants) await v.close();
    hook.worker.terminate();
  }
  const med = (name: string, k: keyof Round) => median(rounds.get(name)!.map((r) => r[k]));
  for (const [name] of variants) {
    line(`refresh_rate_hook_${name}`, med(name, "rate"), "refreshes/s", 0);
    line(`refresh_p50_hook_${name}`, med(name, "p50"), "ms", 2);
    line(`refresh_p99_hook_${name}`, med(name, "p99"), "ms", 2);
    line(`refresh_cpu_server_thread_hook_${name}`, med(name, "cpu"), "µs/refresh");
    line(
      `refresh_errors_hook_${name}`,
      rounds.get(name)!.reduce((a, r) => a + r.errors, 0),
      "responses",
      0,
    );
  }
  const change = (k: keyof Round) => (med("hook", k) / med("off", k) - 1) * 100;
  line("refresh_rate_change_hook_vs_off", change("rate"), "%");
  line("refresh_cpu_change_hook_vs_off", change("cpu"), "%");
}

await main();
