/**
 * Opening the PostgreSQL connection pool of the store from `[storage]`: the URL (TLS mode from
 * its `sslmode`), an optional password that overrides the URL's, an optional CA bundle, and a
 * bounded pool. Queries are prepared (the client's default), so each statement is parsed once
 * per connection.
 *
 * The pool contains the client's known faults on a lost connection (`pg_fault_guard.ts`).
 *
 * @module
 */
import postgres from "postgres";
import { type PoolGuardOptions, replaceablePool } from "./pg_fault_guard.ts";

/** The pool type the PostgreSQL store runs on. */
export type Sql = postgres.Sql;

/** What {@linkcode openPostgres} needs (the `[storage]` keys of a PostgreSQL store). */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/database?sslmode=…` */
  readonly url: string;
  /** Overrides the URL's password (so it can come from `${VAR}` unencoded). */
  readonly password?: string | undefined;
  /** Most connections this process opens. */
  readonly poolSize: number;
  /** PEM CA bundle the server's certificate must chain to (implies `verify-full`). */
  readonly tlsCa?: string | undefined;
  /** Seconds to wait for a connection before a query fails. */
  readonly connectTimeout?: number;
  /** Told when a client fault was contained and the pool replaced (for the log). */
  readonly onFault?: PoolGuardOptions["onFault"];
  /** See {@linkcode PoolGuardOptions.stallMs}. */
  readonly stallMs?: number;
}

/**
 * Opens a bounded, lazily connecting pool. Nothing connects until the first query; a lost
 * connection is re-opened by the next query, so a database restart needs no service restart
 * (queries in between fail, and the service answers them with a generic `server_error`). The
 * client's faults on a lost connection are contained: the pool is replaced instead of the
 * process ending or its queries waiting forever ({@linkcode replaceablePool}).
 *
 * @param options URL, password, pool size, CA bundle, fault callback
 * @returns the pool; `end()` it to close
 */
export function openPostgres(options: PostgresOptions): Sql {
  return replaceablePool(() => openClientPool(options), {
    ...(options.onFault ? { onFault: options.onFault } : {}),
    ...(options.stallMs !== undefined ? { stallMs: options.stallMs } : {}),
  });
}

/**
 * The client's own pool for `options`, without the fault guard: what {@linkcode openPostgres}
 * opens (and re-opens) inside it. Only for measuring the guard against its floor
 * (`bench/pg_pool_guard.ts`); the store always runs on {@linkcode openPostgres}.
 *
 * @param options as for {@linkcode openPostgres} (its fault options are not used)
 * @returns the unguarded pool
 */
export function openClientPool(options: PostgresOptions): Sql {
  return postgres(options.url, {
    max: options.poolSize,
    ...(options.password !== undefined ? { password: options.password } : {}),
    ...(options.tlsCa !== undefined
      ? { ssl: { ca: options.tlsCa, rejectUnauthorized: true } }
      : {}),
    connect_timeout: options.connectTimeout ?? 10,
    // After failed connects the client waits before the next (its default grows to 20 s);
    // capped at one second so the service is back within a second of the database.
    backoff: (retries: number) => Math.min(0.1 * retries, 1),
    // Idle connections go after a minute; a busy pool keeps its connections.
    idle_timeout: 60,
    // The migrations' `create … if not exists` notices are not worth a log line.
    onnotice: () => {},
    connection: { application_name: "token-exchange" },
  });
}

/**
 * The URL without its password, for messages and logs.
 *
 * @example
 * ```ts
 * redactUrl("postgres://te:secret@db:5432/te"); // "postgres://te@db:5432/te"
 * ```
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = "";
    return u.toString();
  } catch {
    return "(unparseable URL)";
  }
}

/**
 * A record as a `jsonb` parameter. Records are plain JSON data (strings, numbers, booleans,
 * nested objects); the cast only tells the client's types so.
 */
export function json(
  sql: postgres.Sql | postgres.TransactionSql,
  value: object,
): postgres.Parameter {
  return sql.json(value as postgres.JSONValue);
}
