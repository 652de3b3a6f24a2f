/**
 * Containing the faults of the PostgreSQL client, postgres.js 3.4.9 (the newest release), so a
 * lost database connection never ends the process or wedges it:
 *
 * - a write it deferred with `setImmediate` can run after the connection closed, and throws
 *   `TypeError: Cannot read properties of null (reading 'write')` from `nextWrite` where no
 *   caller can catch it (porsager/postgres#1154, #1208; the fixes, #1168/#1209, are unreleased);
 * - a socket error, or the client's own `CONNECTION_DESTROYED`, can reject a promise nobody
 *   awaits while a connection is torn down, and tearing down a connection whose write failed
 *   that way throws again (it clears its spent timer: `Cannot read properties of undefined
 *   (reading '_idleNext')`);
 * - a connection torn down with a write still buffered keeps that buffer and a spent timer
 *   (its `closed()` clears the timer without forgetting it), so its later writes are never
 *   sent: its queries wait forever.
 *
 * The pool this module builds stands in for the client's pool. Errors thrown or rejected by the
 * client's connection code are kept from ending the process (listeners on `globalThis`'s
 * `error` and `unhandledrejection` events, for those errors only); the pool is replaced with a
 * fresh one on the write after close, and on a query pending longer than `stallMs` shortly
 * after a connection was lost (the third fault). The broken
 * connection cannot be told apart from the others, so the whole pool goes: its queries in
 * flight fail at once (the service answers them with its generic 500), the next ones run on the
 * new pool.
 *
 * @module
 */
import type postgres from "postgres";

/**
 * A contained fault (for the log): the pool is replaced for `closed_socket_write` and
 * `stalled_queries`; `client_error` (another error thrown inside the client's connection code,
 * such as its clearing a spent timer of a connection being torn down) and
 * `stray_rejection` are only kept from ending the process.
 */
export type PoolFault =
  | "closed_socket_write"
  | "stalled_queries"
  | "client_error"
  | "stray_rejection";

/** What {@linkcode replaceablePool} watches for. */
export interface PoolGuardOptions {
  /** Told of each contained fault, with the error (none for a stall). */
  readonly onFault?: (fault: PoolFault, err?: unknown) => void;
  /**
   * A query pending this long within {@linkcode STALL_WINDOW_MS} of a lost connection counts as
   * stalled (default 30 s: no statement of the store runs that long).
   */
  readonly stallMs?: number;
}

/** How long after a lost connection a pending query may be taken for a stalled one. */
export const STALL_WINDOW_MS = 5 * 60_000;

/** The error codes of a lost connection, the client's and the socket's. */
const CONNECTION_LOST = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
]);

/**
 * Whether a thrown value is postgres.js's write to a connection it already closed: a
 * `TypeError` reading `write` of null, thrown from the client's `nextWrite`. Nothing else is
 * contained: any other uncaught error still ends the process.
 *
 * @param err the uncaught value
 * @returns true only for that fault
 */
export function isClosedSocketWrite(err: unknown): err is TypeError {
  return isClientFault(err) && /reading 'write'|evaluating 'socket\.write'/.test(err.message) &&
    /nextWrite/.test(err.stack ?? "");
}

/**
 * Whether an uncaught error was thrown inside the client's connection code (a `TypeError` with
 * a frame in postgres.js's `connection.js`): its faults on a torn-down connection, the
 * {@linkcode isClosedSocketWrite} one included.
 *
 * @param err the uncaught value
 * @returns true for such an error
 */
export function isClientFault(err: unknown): err is TypeError {
  return err instanceof TypeError &&
    /[\\/]postgres(@[^\\/]+)?[\\/].*connection\.js/.test(err.stack ?? "");
}

/**
 * Whether an unhandled rejection is a lost connection's error nobody awaited: a socket error
 * of the Node-compatible `net` layer (`read`/`write`/`connect` with an errno code: in this
 * process only the PostgreSQL client uses `node:net`; the listeners are `Deno.serve` and
 * outgoing HTTP is `fetch`) or the client's own (`CONNECTION_DESTROYED`, …, whose `errno` is
 * its code).
 *
 * @param reason the rejection's reason
 * @returns true for a stray connection error
 */
export function isStraySocketError(reason: unknown): boolean {
  if (!(reason instanceof Error)) return false;
  const { code, syscall, errno } = reason as { code?: unknown; syscall?: unknown; errno?: unknown };
  return typeof code === "string" && CONNECTION_LOST.has(code) &&
    (syscall === "read" || syscall === "write" || syscall === "connect" || errno === code);
}

/** Whether a query's failure says the connection was lost. */
function connectionLost(err: unknown): boolean {
  return typeof err === "object" && err !== null &&
    CONNECTION_LOST.has(String((err as { code?: unknown }).code));
}

/**
 * A pool standing in for the client's, replacing it on the faults of the module doc. Callable
 * and usable as the client's own (`sql\`…\``, `sql.begin`, `sql.json`, `sql.end`); `end()`
 * removes the listeners and the watchdog.
 *
 * Every query awaited through it is timed (a token in a map, its own `then`, one extra
 * promise), lost connection or not: measured against the unguarded pool with the same options
 * (`bench/pg_pool_guard.ts`), that is at most about 1 µs of CPU per `select 1` of 13–40 µs,
 * within the machine's noise, as is the refresh's CPU on PostgreSQL (`bench/token_refresh.ts`);
 * a design counting queries per watchdog tick instead measured the same, so this, the simpler
 * one, stays.
 *
 * @param open opens a fresh client pool
 * @param options fault callback and stall bound
 * @returns the pool
 */
export function replaceablePool(
  open: () => postgres.Sql,
  options: PoolGuardOptions = {},
): postgres.Sql {
  const stallMs = options.stallMs ?? 30_000;
  let current = open();
  let ended = false;
  let lostAt = -Infinity;
  const pending = new Map<symbol, number>();
  const replace = (fault: PoolFault, err?: unknown) => {
    const old = current;
    current = open();
    pending.clear();
    lostAt = -Infinity;
    // Destroyed at once: a broken connection's queries would otherwise wait forever.
    old.end({ timeout: 0 }).catch(() => {});
    options.onFault?.(fault, err);
  };
  const onError = (event: ErrorEvent) => {
    if (ended || !isClientFault(event.error)) return;
    event.preventDefault();
    // Only the write after close leaves its connection unable to send again.
    if (isClosedSocketWrite(event.error)) replace("closed_socket_write", event.error);
    else options.onFault?.("client_error", event.error);
  };
  const onRejection = (event: PromiseRejectionEvent) => {
    if (ended || !isStraySocketError(event.reason)) return;
    event.preventDefault();
    // Not a reason to replace: tearing a replaced pool down produces these too.
    options.onFault?.("stray_rejection", event.reason);
  };
  globalThis.addEventListener("error", onError);
  globalThis.addEventListener("unhandledrejection", onRejection);
  const watchdog = setInterval(() => {
    const now = Date.now();
    if (now - lostAt > STALL_WINDOW_MS) return;
    for (const started of pending.values()) {
      if (now - started > stallMs) return replace("stalled_queries");
    }
  }, Math.max(100, Math.min(5_000, stallMs / 4)));
  Deno.unrefTimer(watchdog);
  /** Counts a query or transaction as pending from the moment it is awaited until it settles. */
  const settle = <T>(token: symbol, value: T) => {
    pending.delete(token);
    return value;
  };
  const failed = (token: symbol, err: unknown) => {
    pending.delete(token);
    if (connectionLost(err)) lostAt = Date.now();
    throw err;
  };
  const watch = <T>(query: T): T => {
    if (typeof query !== "object" || query === null) return query;
    const then = (query as { then?: unknown }).then;
    if (typeof then !== "function") return query;
    // Only when awaited: a fragment built into another query is never run on its own.
    Object.defineProperty(query, "then", {
      configurable: true,
      value(
        this: PromiseLike<unknown>,
        ok?: (v: unknown) => unknown,
        ko?: (e: unknown) => unknown,
      ) {
        const token = Symbol();
        pending.set(token, Date.now());
        return then.call(
          this,
          (v: unknown) => settle(token, v),
          (e: unknown) => failed(token, e),
        ).then(ok, ko);
      },
    });
    return query;
  };
  const end: postgres.Sql["end"] = (opts) => {
    ended = true;
    clearInterval(watchdog);
    globalThis.removeEventListener("error", onError);
    globalThis.removeEventListener("unhandledrejection", onRejection);
    return current.end(opts);
  };
  // A function target, so the stand-in is callable as a tagged template like the pool.
  return new Proxy(function pool() {} as unknown as postgres.Sql, {
    apply: (_target, _this, args) => watch(Reflect.apply(current, undefined, args)),
    get(_target, prop) {
      if (prop === "end") return end;
      if (prop === "begin") {
        // A native promise: `await` would skip a `then` of its own, so it is tracked from the
        // call (a transaction is always awaited at once).
        return (...args: unknown[]) => {
          const token = Symbol();
          pending.set(token, Date.now());
          return (current.begin as (...a: unknown[]) => Promise<unknown>)(...args).then(
            (v) => settle(token, v),
            (e) => failed(token, e),
          );
        };
      }
      const value = Reflect.get(current, prop);
      return typeof value === "function" ? value.bind(current) : value;
    },
  });
}
