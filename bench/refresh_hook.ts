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
 * Beside them, in the same rounds, the floor of the hook's cost: `fetch`, the same number of
 * bare `fetch` POSTs of a hook-sized body to the same hook server from the main thread, as
 * many at once as there are clients, each answer read (no signature, no timeout, no checks).
 *
 * Prints `name: value unit` lines: per variant the median rate, p50, p99, the server thread's
 * CPU per refresh and the hook thread's own CPU per refresh (apart: the app's hook is not the
 * service's cost); then the rate and CPU change of `hook` against `off`, the floor's CPU per
 * call on the main thread, and the CPU the hook adds per refresh as a ratio to that floor.
 *
 * Options: `--clients N` (64), `--per-client N` (400), `--rounds N` (3).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { cryptoRandom, systemClock } from "@org/shared";
import { hookRequest } from "../server/hooks/access_token_hook.ts";
import { createIdFactory } from "../server/store/ids.ts";
import { benchUser } from "./support/bench_user.ts";
import { LOAD_OPTIONS, roundFigures, startSeededServer } from "./support/refresh_rounds.ts";
import { line, median, percentile } from "./support/report.ts";
import {
  newWorkerThreads,
  threadCpuUs,
  threadsCpuUs,
  threadSnapshot,
} from "./support/thread_cpu.ts";

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
  /** The hook server's thread CPU per refresh (µs): the app's cost, not the service's. */
  readonly hookCpu: number;
}

interface Variant {
  round(i: number, hookTids: ReadonlySet<string>): Promise<Round>;
  close(): Promise<void>;
}

async function startVariant(hookUrl?: string): Promise<Variant> {
  const server = await startSeededServer({
    extra: hookUrl === undefined
      ? {}
      : { hooks: { access_token: { url: hookUrl, secret: "${H}" } } },
    env: { H: SECRET },
    clients: CLIENTS,
    perClient: PER_CLIENT,
    rounds: ROUNDS,
  });
  return {
    async round(i, hookTids) {
      const before = threadSnapshot();
      const r = await server.round(i);
      const hookCpu = threadsCpuUs(before, threadSnapshot(), hookTids);
      const f = roundFigures(r);
      return {
        rate: f.rate,
        p50: f.p50,
        p99: f.p99,
        errors: f.errors,
        cpu: r.cpu.main / f.count,
        hookCpu: hookCpu / f.count,
      };
    },
    close: () => server.close(),
  };
}

/**
 * The floor: bare `fetch` POSTs of a hook call's body to the hook server, `CLIENTS` at once,
 * `CLIENTS × PER_CLIENT` in all, each answer read. Its "refresh" is one call.
 */
function loopbackFetch(url: string): Variant {
  const ids = createIdFactory(systemClock, cryptoRandom);
  const now = Date.now();
  const user = benchUser(ids, now, "user-0", 0);
  const iat = Math.floor(now / 1000);
  // The claims a refresh's token carries (see `accessTokenPayload`), so the body is as long.
  const claims = {
    iss: "http://127.0.0.1:8080",
    sub: user.id,
    iat,
    exp: iat + 900,
    jti: ids.next("msg").slice(4),
    sid: ids.next("ses"),
    ...user.claims,
  };
  const body = JSON.stringify(hookRequest("refresh_token", user, claims, {
    provider: user.provider,
    client_id: null,
  }));
  const headers = { "content-type": "application/json" };
  return {
    async round(_i, hookTids) {
      const total = CLIENTS * PER_CLIENT;
      const latencies: number[] = [];
      let next = 0;
      let errors = 0;
      const before = threadSnapshot();
      const started = performance.now();
      await Promise.all(Array.from({ length: CLIENTS }, async () => {
        while (next++ < total) {
          const t = performance.now();
          const res = await fetch(url, { method: "POST", headers, body });
          await res.text();
          if (!res.ok) errors++;
          latencies.push(performance.now() - t);
        }
      }));
      const elapsed = performance.now() - started;
      const after = threadSnapshot();
      const sorted = latencies.sort((a, b) => a - b);
      return {
        rate: total / (elapsed / 1000),
        p50: percentile(sorted, 0.5),
        p99: percentile(sorted, 0.99),
        errors,
        cpu: threadCpuUs(before, after, String(Deno.pid)).main / total,
        hookCpu: threadsCpuUs(before, after, hookTids) / total,
      };
    },
    close: () => Promise.resolve(),
  };
}

/** Starts the hook's thread; resolves with it, its thread ids and its URL once it listens. */
function startHook(): Promise<{ worker: Worker; url: string; tids: Set<string> }> {
  const before = threadSnapshot();
  const worker = new Worker(new URL("./support/hook_worker.ts", import.meta.url), {
    type: "module",
  });
  return new Promise((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<number>) =>
      resolve({
        worker,
        url: `http://127.0.0.1:${e.data}/hooks/access-token`,
        tids: newWorkerThreads(before, threadSnapshot()),
      });
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
    ["fetch", loopbackFetch(hook.url)],
  ];
  if (hook.tids.size === 0) console.log("# the hook thread's CPU is not measured here (no /proc)");
  const rounds = new Map<string, Round[]>(variants.map(([name]) => [name, []]));
  try {
    for (let i = 1; i <= ROUNDS; i++) {
      const order = i % 2 === 0 ? variants : [...variants].reverse();
      for (const [name, v] of order) {
        const r = await v.round(i, hook.tids);
        rounds.get(name)!.push(r);
        console.log(
          `# round ${i} ${name}: ${r.rate.toFixed(0)} refreshes/s, p99 ${r.p99.toFixed(2)} ms, ` +
            `server thread ${r.cpu.toFixed(1)} µs/refresh, hook thread ${r.hookCpu.toFixed(1)} µs`,
        );
      }
    }
  } finally {
    for (const [, v] of variants) await v.close();
    hook.worker.terminate();
  }
  const med = (name: string, k: keyof Round) => median(rounds.get(name)!.map((r) => r[k]));
  for (const [name] of variants.slice(0, 2)) {
    line(`refresh_rate_hook_${name}`, med(name, "rate"), "refreshes/s", 0);
    line(`refresh_p50_hook_${name}`, med(name, "p50"), "ms", 2);
    line(`refresh_p99_hook_${name}`, med(name, "p99"), "ms", 2);
    line(`refresh_cpu_server_thread_hook_${name}`, med(name, "cpu"), "µs/refresh");
    line(`refresh_cpu_hook_thread_hook_${name}`, med(name, "hookCpu"), "µs/refresh");
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
  // The floor and the ratio: CPU per round (rounds are interleaved) so both share its moment.
  const added = med("hook", "cpu") - med("off", "cpu");
  line("hook_loopback_fetch_rate", med("fetch", "rate"), "calls/s", 0);
  line("hook_loopback_fetch_cpu_main_thread", med("fetch", "cpu"), "µs/call");
  line("hook_loopback_fetch_cpu_hook_thread", med("fetch", "hookCpu"), "µs/call");
  line("refresh_cpu_added_by_hook", added, "µs/refresh");
  line("refresh_cpu_added_by_hook_vs_loopback_fetch", added / med("fetch", "cpu"), "x", 2);
}

await main();
