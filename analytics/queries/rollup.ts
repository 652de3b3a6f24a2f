/**
 * The daily roll-up: the grouped rows of every shared scan (`shared_scan.ts`), computed once
 * per closed UTC day and kept in a DuckDB database beside the table (a local file for the
 * dashboard, in memory for tests), so a range's closed days are read as a few grouped rows
 * and only its open days as raw rows. A closed day's grouped rows never change: the visitor
 * key rotates daily, so visitors, entries and every count of a day are that day's alone, and
 * counts of several days are sums of the days' counts (`regroupedSql`).
 *
 * - **Closed**: a day is rolled up only once {@linkcode ROLLUP_CLOSE_AFTER_HOURS} hours have
 *   passed since its end, when the pipeline can no longer be delivering its records
 *   (docs/analytics.md says how long Firehose holds them).
 * - **Changed**: each rolled-up day keeps its fingerprint (rows and the sum of their event
 *   times in ms); before a range is read the fingerprints of its closed days are read from
 *   the table again, unless the table's snapshot is the one they were last checked at, and
 *   a day whose fingerprint differs (a late record, a backfill, rows deleted) is rolled up
 *   again, one whose rows are gone is dropped. A rewrite that keeps the rows (Iceberg
 *   compaction) keeps the fingerprint and costs nothing.
 * - **Exact**: a day's grouped rows are the scan's own SQL (`groupedSql`) for that one day,
 *   once per bots rule, so the answer with the roll-up is the answer without it.
 * - **Versioned**: the database holds a digest of the scans' SQL; a release that changes a
 *   scan drops the rolled-up rows and rolls up again.
 *
 * @module
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { readBound } from "./duckdb.ts";
import { type QueryRange, utcDay } from "./range.ts";
import { groupedSql, type NamedMember, type SharedScan } from "./shared_scan.ts";
import { type PageViewSource, quoteIdentifier, type Rollup, type RollupReport } from "./source.ts";

/**
 * Hours after the end of a UTC day before it is rolled up. A record reaches the table at
 * most about 15 minutes after its request when nothing fails: CloudFront's log delivery
 * (typically within minutes), the transform's buffer (60 s), Firehose's Iceberg buffer
 * (300 s) and its retries (`RetryOptions` 300 s). Two hours leave room for a slow delivery;
 * anything later (a backfill, a replay) is found by the day's fingerprint.
 */
export const ROLLUP_CLOSE_AFTER_HOURS = 2;

/**
 * The last closed UTC day at a time (pure): the day before the one
 * {@linkcode ROLLUP_CLOSE_AFTER_HOURS} hours earlier.
 *
 * @param nowMs the time, ms since the epoch
 * @returns `YYYY-MM-DD`
 */
export function lastClosedDay(nowMs: number): string {
  return utcDay(nowMs - ROLLUP_CLOSE_AFTER_HOURS * 3_600_000, -1);
}

/** A scan to roll up, with every member it serves (they all read the rolled rows). */
export interface RolledScan {
  /** The scan's name (its table is `scan_<name>`). */
  readonly name: string;
  /** The scan. */
  readonly scan: SharedScan;
  /** Every member of the scan. */
  readonly members: readonly NamedMember<string>[];
}

/** Options of {@linkcode attachRollup}. */
export interface RollupOptions {
  /** The DuckDB database: a file, or `:memory:`. */
  readonly path: string;
  /** The alias it is attached as (default `rollup`). */
  readonly alias?: string;
  /** The scans to roll up. */
  readonly scans: readonly RolledScan[];
  /** The clock that decides which days are closed. */
  readonly now: () => number;
}

const FINGERPRINT = "count(*) AS rows, CAST(sum(epoch_ms(event_time)) AS VARCHAR) AS times";

/**
 * Attaches the roll-up database to the source's DuckDB instance (its connections all see it),
 * creating its tables, or emptying them when the scans' SQL changed since they were filled.
 *
 * @param source the table
 * @param options where the roll-up lives, what it holds, the clock
 * @returns the roll-up
 */
export async function attachRollup(
  source: PageViewSource,
  options: RollupOptions,
): Promise<Rollup> {
  const db = quoteIdentifier(options.alias ?? "rollup");
  const c = source.connection;
  const table = (scan: string) => `${db}.${quoteIdentifier(`scan_${scan}`)}`;
  const days = `${db}.days`;
  await c.run(`ATTACH ${literal(options.path)} AS ${db}`);
  const definition = await scansDigest(source.relation, options.scans);
  await c.run(`CREATE TABLE IF NOT EXISTS ${db}.meta (definition VARCHAR NOT NULL)`);
  const stored = await readBound(c, `SELECT definition FROM ${db}.meta`, {});
  if (stored[0]?.definition !== definition) {
    for (const s of options.scans) await c.run(`DROP TABLE IF EXISTS ${table(s.name)}`);
    await c.run(`DROP TABLE IF EXISTS ${days}`);
    await c.run(`DELETE FROM ${db}.meta`);
    await c.run(`INSERT INTO ${db}.meta VALUES (${literal(definition)})`);
  }
  await c.run(
    `CREATE TABLE IF NOT EXISTS ${days} (day DATE PRIMARY KEY, rows BIGINT NOT NULL, ` +
      "times VARCHAR, rolled_at TIMESTAMPTZ NOT NULL)",
  );
  // A day's rolled rows for one bots rule: the scan's own grouped SQL for that day.
  const dayRows = (s: RolledScan, range: QueryRange) =>
    `SELECT CAST($from AS DATE) AS rolled_day, CAST($bots AS BOOLEAN) AS bots, * FROM (${
      groupedSql(s.scan, source.relation, range, s.members)
    })`;
  const dayParams = (range: QueryRange) => ({
    from: range.from,
    to: range.to,
    bots: range.includeBots,
  });
  for (const s of options.scans) {
    // The columns and their types are the scan's own: an empty run of it for one day.
    await readBound(
      c,
      `CREATE TABLE IF NOT EXISTS ${table(s.name)} AS ${dayRows(s, DAY_RANGE)} LIMIT 0`,
      dayParams(DAY_RANGE),
    );
  }

  // Empties a day (its rolled rows and its fingerprint), inside the caller's transaction.
  const emptyDay = async (w: DuckDBConnection, day: string) => {
    for (const s of options.scans) {
      await readBound(w, `DELETE FROM ${table(s.name)} WHERE rolled_day = CAST($from AS DATE)`, {
        from: day,
      });
    }
    await readBound(w, `DELETE FROM ${days} WHERE day = CAST($from AS DATE)`, { from: day });
  };

  const rollDay = (w: DuckDBConnection, day: string) =>
    inTransaction(w, async () => {
      await emptyDay(w, day);
      for (const s of options.scans) {
        for (const includeBots of [false, true]) {
          const range = { from: day, to: day, includeBots };
          await readBound(w, `INSERT INTO ${table(s.name)} ${dayRows(s, range)}`, dayParams(range));
        }
      }
      // The fingerprint of the rows rolled up, read in the same transaction.
      await readBound(
        w,
        `INSERT INTO ${days} SELECT CAST($from AS DATE), ${FINGERPRINT}, now() FROM ` +
          `${source.relation} WHERE day = CAST($from AS DATE)`,
        { from: day },
      );
    });

  const dropDay = (w: DuckDBConnection, day: string) => inTransaction(w, () => emptyDay(w, day));

  // The closed days of a range whose rolled rows are not the table's: new or changed days
  // (their fingerprint differs) and gone ones (rolled up once, without rows now).
  const compare = async (w: DuckDBConnection, from: string, to: string) => {
    const params = { from, to };
    const now = await readBound(
      w,
      `SELECT strftime(day, '%Y-%m-%d') AS day, ${FINGERPRINT} FROM ${source.relation} ` +
        "WHERE day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE) GROUP BY day",
      params,
    );
    const then = await readBound(
      w,
      `SELECT strftime(day, '%Y-%m-%d') AS day, rows, times FROM ${days} WHERE day ` +
        "BETWEEN CAST($from AS DATE) AND CAST($to AS DATE)",
      params,
    );
    const stored = new Map(then.map((r) => [String(r.day), fingerprintOf(r)]));
    const current = new Set(now.map((r) => String(r.day)));
    const changed = now.filter((r) => stored.get(String(r.day)) !== fingerprintOf(r))
      .map((r) => String(r.day));
    const gone = [...stored.keys()].filter((d) => !current.has(d));
    return { changed, gone, checked: now.length };
  };

  const refreshNow = (from: string, to: string): Promise<RollupReport> =>
    source.use(async (w) => {
      const { changed, gone, checked } = await compare(w, from, to);
      for (const day of changed) await rollDay(w, day);
      for (const day of gone) await dropDay(w, day);
      return { rolled: changed.sort(), dropped: gone.sort(), checked };
    });

  // The closed part of a range, or undefined when it has none.
  const closedPart = (from: string, to: string) => {
    const closed = lastClosedDay(options.now());
    const last = to < closed ? to : closed;
    return from > last ? undefined : last;
  };

  // One refresh at a time (two would roll the same day up at once); the same days asked for
  // while they are being refreshed share that refresh.
  let queue: Promise<unknown> = Promise.resolve();
  const inFlight = new Map<string, Promise<RollupReport>>();
  // Days checked (`from to`) and the table's snapshot then: while the snapshot is the same,
  // the table has not changed and their fingerprints need no reading.
  const verified = new Map<string, string>();
  const snapshotNow = async () => {
    try {
      return await source.snapshot?.();
    } catch {
      return undefined; // Unknown: the fingerprints are read, as without snapshots.
    }
  };
  return {
    lastClosedDay: () => lastClosedDay(options.now()),
    table,
    stale({ from, to }) {
      const last = closedPart(from, to);
      if (last === undefined) return Promise.resolve([]);
      return source.use(async (w) => {
        const { changed, gone } = await compare(w, from, last);
        return [...changed, ...gone].sort();
      });
    },
    refresh({ from, to }) {
      const last = closedPart(from, to);
      if (last === undefined) return Promise.resolve({ rolled: [], dropped: [], checked: 0 });
      const key = `${from} ${last}`;
      const running = inFlight.get(key);
      if (running) return running;
      const started = queue.then(async () => {
        const snapshot = await snapshotNow();
        if (snapshot !== undefined && verified.get(key) === snapshot) {
          return { rolled: [], dropped: [], checked: 0 };
        }
        const report = await refreshNow(from, last);
        if (snapshot !== undefined) verified.set(key, snapshot);
        return report;
      }).finally(() => inFlight.delete(key));
      inFlight.set(key, started);
      queue = started.catch(() => {});
      return started;
    },
  };
}

/** Any one day: the scans' SQL for it names the columns and their types. */
const DAY_RANGE = { from: "2000-01-01", to: "2000-01-01", includeBots: false } as const;

function fingerprintOf(row: Record<string, unknown>): string {
  return `${String(row.rows)} ${String(row.times)}`;
}

/** A digest of the scans' SQL: rolled-up rows are only read by the SQL that wrote them. */
async function scansDigest(relation: string, scans: readonly RolledScan[]): Promise<string> {
  const text = scans.map((s) => `${s.name}: ${groupedSql(s.scan, relation, DAY_RANGE, s.members)}`)
    .join("\n");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Runs `fn` in one transaction of `w`: all of its writes, or none. */
async function inTransaction(w: DuckDBConnection, fn: () => Promise<void>): Promise<void> {
  await w.run("BEGIN TRANSACTION");
  try {
    await fn();
    await w.run("COMMIT");
  } catch (err) {
    await w.run("ROLLBACK").catch(() => {});
    throw err;
  }
}

/** A SQL string literal (pure): DuckDB's ATTACH takes no bound parameter. */
function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** How many closed days before today the dashboard rolls up when it starts: 90 days and the
 * 90 before them, the longest preset range and its previous range. */
export const ROLLUP_START_DAYS = 180;

/**
 * Rolls up the closed days of the last `days` days, one day per refresh, newest first (the
 * default 7-day page is ready first), stopping between days once `stopped` says so: what the
 * dashboard does in the background when it starts. Which days need it is read first, in one
 * read of the table ({@linkcode Rollup.stale}): at a start with every day rolled up already,
 * that one read is all, not a read per day.
 *
 * @param rollup the roll-up
 * @param now the time, ms since the epoch
 * @param days how many days back
 * @param stopped whether to stop (checked before each day)
 * @returns the days rolled up
 */
export async function rollUpRecentDays(
  rollup: Rollup,
  now: number,
  days: number,
  stopped: () => boolean,
): Promise<string[]> {
  const stale = new Set(await rollup.stale({ from: utcDay(now, -days), to: utcDay(now, -1) }));
  const rolled: string[] = [];
  for (let offset = -1; offset >= -days && !stopped(); offset--) {
    const day = utcDay(now, offset);
    if (stale.has(day)) rolled.push(...(await rollup.refresh({ from: day, to: day })).rolled);
  }
  return rolled;
}
