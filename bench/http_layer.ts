// deno-lint-ignore-file no-console -- a benchmark prints its figures
/**
 * The public listener's HTTP layer alone, without the grant: what `POST /token` costs on the
 * server thread beyond a bare `Deno.serve` form → JSON handler.
 *
 * Two servers on loopback, driven in turn (interleaved rounds, so load from other processes
 * hits both alike) by the same keep-alive load generator `bench/token_refresh.ts` uses, from
 * a worker thread:
 *
 * - `bare`: `Deno.serve` reading the form with `URLSearchParams` and answering `Response.json`
 *   with `Cache-Control: no-store` set on it (the floor of any form → JSON endpoint).
 * - `public_handler`: the real public handler (`createPublicHandler`, routing, rate limit,
 *   form read, `grant_type` dispatch, metrics, error mapping) over a real service, with the
 *   `refresh_token` grant replaced by a stub answering a fixed token response of the real shape.
 *
 * Prints the median over rounds of the server thread's CPU µs per request of each, and their
 * difference (`http_layer_overhead_cpu`): the cost the refresh benchmark's
 * `refresh_http_overhead_cpu` attributes to our code rather than to `Deno.serve`.
 *
 * Options: `--clients N` (64), `--requests N` per client per round (300), `--rounds N` (5).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { createJsonLogger } from "@org/shared";
import { resolveConfig } from "../server/config/resolve.ts";
import type { Grant } from "../server/grants/grant.ts";
import type { TokenResponse } from "../server/grants/issue_tokens.ts";
import { createPublicHandler } from "../server/endpoints/public_handler.ts";
import { startServer } from "../server/serve.ts";
import type { LoadRequest, LoadResult } from "./support/refresh_load_worker.ts";
import { threadCpuUs, threadSnapshot } from "./support/thread_cpu.ts";
import { line, median } from "./support/report.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    clients: { type: "string", default: "64" },
    requests: { type: "string", default: "300" },
    rounds: { type: "string", default: "5" },
  },
});
const CLIENTS = Number(values.clients);
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);

/** A token response of the real shape (an EdDSA JWT of typical length, a 43-char token). */
const REFRESH_TOKEN = "r".repeat(43);
const STUB_RESPONSE: TokenResponse = {
  access_token: `eyJhbGciOiJFZERTQSIsImtpZCI6ImtleS0xIiwidHlwIjoiSldUIn0.${"p".repeat(300)}.${
    "s".repeat(86)
  }`,
  refresh_token: REFRESH_TOKEN,
  token_type: "Bearer",
  expires_in: 900,
};
const stubGrant: Grant = () => Promise.resolve(STUB_RESPONSE);

/** One round of load against `port`: server-thread CPU µs per request. */
function drive(port: number): Promise<{ mainUs: number; errors: number; rate: number }> {
  const req: LoadRequest = {
    ports: [port],
    tokens: Array.from({ length: CLIENTS }, () => REFRESH_TOKEN),
    perClient: REQUESTS,
  };
  const before = threadSnapshot();
  const worker = new Worker(new URL("./support/refresh_load_worker.ts", import.meta.url), {
    type: "module",
  });
  return new Promise<{ mainUs: number; errors: number; rate: number }>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<LoadResult>) => {
      const cpu = threadCpuUs(before, threadSnapshot(), String(Deno.pid));
      const n = e.data.latenciesMs.length;
      resolve({
        mainUs: cpu.main / n,
        errors: e.data.errors,
        rate: n / (e.data.elapsedMs / 1000),
      });
    };
    worker.onerror = (e) => {
      e.preventDefault();
      reject(new Error(e.message));
    };
    worker.postMessage(req);
  }).finally(() => worker.terminate());
}

const resolved = resolveConfig({
  server: { port: 0 },
  storage: { kv_path: ":memory:" },
  // The limiter stays on (its cost is part of every /token request), never exhausted.
  rate_limit: { requests: 1_000_000_000 },
}, {});
if ("errors" in resolved) throw new Error(JSON.stringify(resolved.errors));
const kv = await Deno.openKv(":memory:");
const service = await startServer({
  config: resolved.config,
  kv,
  log: createJsonLogger({ level: "warn" }),
});
const handler = createPublicHandler(service.deps, new Map([["refresh_token", stubGrant]]));
const quiet = { hostname: "127.0.0.1", port: 0, onListen: () => {} };
const ours = Deno.serve(quiet, handler);
const bare = Deno.serve(quiet, async (req) => {
  const params = new URLSearchParams(await req.text());
  if (params.get("grant_type") !== "refresh_token") return new Response(null, { status: 400 });
  // Headers set on the response, not passed in its init: the cheaper way (see json_response.ts).
  const res = Response.json(STUB_RESPONSE);
  res.headers.set("cache-control", "no-store");
  return res;
});
try {
  console.log(`# ${CLIENTS} clients x ${REQUESTS} requests, ${ROUNDS} interleaved rounds`);
  const results = { bare: [] as number[], ours: [] as number[] };
  let errors = 0;
  // Warm-up of both.
  await drive(bare.addr.port);
  await drive(ours.addr.port);
  for (let i = 0; i < ROUNDS; i++) {
    const b = await drive(bare.addr.port);
    const o = await drive(ours.addr.port);
    results.bare.push(b.mainUs);
    results.ours.push(o.mainUs);
    errors += b.errors + o.errors;
  }
  const b = median(results.bare);
  const o = median(results.ours);
  line("http_bare_cpu_server_thread", b, "µs/request");
  line("http_public_handler_cpu_server_thread", o, "µs/request");
  line("http_layer_overhead_cpu", o - b, "µs/request");
  line("http_errors", errors, "responses", 0);
} finally {
  await ours.shutdown();
  await bare.shutdown();
  await service.shutdown();
  kv.close();
}
