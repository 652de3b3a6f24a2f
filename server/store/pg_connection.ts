/**
 * Opening the PostgreSQL connection pool of the store from `[storage]`: the URL (TLS mode from
 * its `sslmode`), an optional password that overrides the URL's, an optional CA bundle, and a
 * bounded pool. Queries are prepared (the client's default), so each statement is parsed once
 * per connection.
 *
 * The pool also contains a fault of the client, postgres.js 3.4.9 (the newest release): a write
 * it deferred with `setImmediate` can run after the connection closed, and throws
 * `TypeError: Cannot read properties of null (reading 'write')` from `nextWrite` where no caller
 * can catch it (porsager/postgres#1154, #1208; the fix, #1168/#1209, is unreleased). Uncaught,
 * that ends the process; and the connection it came from keeps a stale buffer that never flushes
 * again. So {@linkcode openPostgres} stops that one error from ending the process and replaces
 * the whole pool (the broken connection cannot be told apart from the others).
 *
 * @module
 */
import postgres from "postgres";

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
  /**
   * Told when the client's write after close was caught and the pool replaced (for the log);
   * the process goes on either way.
   */
  readonly onFault?: (err: TypeError) => void;
}

/**
 * Whether a thrown value is postgres.js's write to a connection it already closed (see the
 * module doc): a `TypeError` reading `write` of null, thrown from the client's `nextWrite`.
 * Nothing else is contained: any other uncaught error still ends the process.
 *
 * @param err the uncaught value
 * @returns true only for that fault
 */
export function isClosedSocketWrite(err: unknown): err is TypeError {
  if (!(err instanceof TypeError)) return false;
  const stack = err.stack ?? "";
  return /reading 'write'|evaluating 'socket\.write'/.test(err.message) &&
    /nextWrite/.test(stack) && /[\\/]postgres(@[^\\/]+)?[\\/].*connection\.js/.test(stack);
}

/**
 * Opens a bounded, lazily connecting pool. Nothing connects until the first query; a lost
 * connection is re-opened by the next query, so a database restart needs no service restart
 * (queries in between fail, and the service answers them with a generic `server_error`).
 *
 * The pool returned stands in for the client's own pool, which it replaces with a fresh one
 * when the client's write after close (see {@linkcode isClosedSocketWrite}) is caught: until
 * `end()`, that one uncaught error is kept from ending the process (a listener on
 * `globalThis`'s `error` event), the old pool is ended (its queries in flight get up to 5 s),
 * and the next query runs on the new one.
 *
 * @param options URL, password, pool size, CA bundle, fault callback
 * @returns the pool; `end()` it to close
 */
export function openPostgres(options: PostgresOptions): Sql {
  let current = connect(options);
  let ended = false;
  const onError = (event: ErrorEvent) => {
    if (ended || !isClosedSocketWrite(event.error)) return;
    event.preventDefault();
    const old = current;
    current = connect(options);
    old.end({ timeout: 5 }).catch(() => {});
    options.onFault?.(event.error);
  };
  globalThis.addEventListener("error", onError);
  const end: Sql["end"] = (opts) => {
    ended = true;
    globalThis.removeEventListener("error", onError);
    return current.end(opts);
  };
  // A function target, so the stand-in is callable as a tagged template like the pool.
  return new Proxy(function pool() {} as unknown as Sql, {
    apply: (_target, _this, args) => Reflect.apply(current, undefined, args),
    get(_target, prop) {
      if (prop === "end") return end;
      const value = Reflect.get(current, prop);
      return typeof value === "function" ? value.bind(current) : value;
    },
  });
}

/** The client's own pool for `options`. */
function connect(options: PostgresOptions): Sql {
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
