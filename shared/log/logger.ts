import type { Clock } from "../time/clock.ts";

/** Severity of a log line, lowest first. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** Structured fields attached to a log line. */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * The one logging interface both programs take as a dependency.
 *
 * Lines are structured (a message plus fields); how they are written is the implementation's
 * choice. Nothing outside `main.ts` files writes to the console directly.
 */
export interface Logger {
  /** Detail for debugging; off by default. */
  debug(msg: string, fields?: LogFields): void;
  /** Normal operation worth recording. */
  info(msg: string, fields?: LogFields): void;
  /** Something went wrong but the work continues. */
  warn(msg: string, fields?: LogFields): void;
  /** A failure someone should look at. */
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

/** Options for {@linkcode createJsonLogger}. */
export interface JsonLoggerOptions {
  /** Lines below this level are dropped. Default `"info"`. */
  level?: LogLevel;
  /** Where each finished line goes (without a trailing newline). Default: standard error. */
  write?: (line: string) => void;
  /** Source of the `time` field. Default: the system clock. */
  clock?: Clock;
  /** Fields added to every line. */
  fields?: LogFields;
}

const ORDER: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * Field names whose values are never written: secrets, tokens, codes, keys, credentials and
 * `Authorization` headers. Matching is on the name, so a new field called `refresh_token` is
 * covered without anyone remembering to add it.
 */
const SECRET_NAME =
  /(secret|token|authorization|password|passwd|cookie|credential|private|api_?key|^code$|nonce|assertion)/i;

/** The placeholder written instead of a redacted value. */
export const REDACTED = "[redacted]";

/**
 * Creates a logger that writes one JSON object per line: `time`, `level`, `msg`, then fields.
 *
 * Fields named like secrets (see the module's rule: `*secret*`, `*token*`, `authorization`,
 * `code`, `*password*`, …) are replaced by `"[redacted]"` at any depth. `Error` values are
 * written as `{name, message, stack}` so the detail reaches the log and nowhere else.
 *
 * @param options level, sink, clock and base fields
 * @returns the logger
 *
 * @example
 * ```ts
 * const log = createJsonLogger({ level: "debug" });
 * log.info("listening", { port: 8080, client_secret: "x" }); // client_secret is redacted
 * ```
 */
export function createJsonLogger(options: JsonLoggerOptions = {}): Logger {
  const min = ORDER[options.level ?? "info"];
  const write = options.write ?? writeStderr;
  const now = options.clock ? () => options.clock!.now() : () => Date.now();
  const make = (base: LogFields): Logger => {
    const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
      if (ORDER[level] < min) return;
      const line = {
        time: new Date(now()).toISOString(),
        level,
        msg,
        ...redact(base) as object,
        ...redact(fields ?? {}) as object,
      };
      write(JSON.stringify(line));
    };
    return {
      debug: (m, f) => emit("debug", m, f),
      info: (m, f) => emit("info", m, f),
      warn: (m, f) => emit("warn", m, f),
      error: (m, f) => emit("error", m, f),
      child: (f) => make({ ...base, ...f }),
    };
  };
  return make(options.fields ?? {});
}

/**
 * Returns a copy of `value` with every secret-named field replaced by `"[redacted]"`.
 *
 * @param value any JSON-like value; `Error`s become `{name, message, stack}`
 * @returns a value safe to serialise into a log line
 */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8) return "[too deep]";
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack };
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value instanceof Headers) {
    return redact(Object.fromEntries(value.entries()), depth + 1);
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_NAME.test(k) && v !== undefined && v !== null
        ? REDACTED
        : redact(v, depth + 1);
    }
    return out;
  }
  if (typeof value === "bigint") return value.toString();
  return value;
}

/** A logger that drops everything; for tests that do not look at logs. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};

/**
 * A logger that keeps lines in memory, for tests that assert what was (or was not) logged.
 *
 * @returns the logger and the array its parsed lines are pushed to
 */
export function createMemoryLogger(
  level: LogLevel = "debug",
): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = createJsonLogger({ level, write: (l) => lines.push(JSON.parse(l)) });
  return { log, lines };
}

const encoder = new TextEncoder();
function writeStderr(line: string): void {
  Deno.stderr.writeSync(encoder.encode(line + "\n"));
}
