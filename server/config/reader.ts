import { type ConfigIssue, parseDuration } from "@org/shared";

/**
 * Reads one TOML table key by key, collecting issues instead of throwing, and reports every
 * key nobody asked for as unknown. Adding a config key is one call on a reader.
 *
 * Values that came from `TOKEN_EXCHANGE__*` environment overrides are strings; for those
 * (and only those) numbers, booleans and lists are parsed from text.
 */
export class TableReader {
  readonly #seen = new Set<string>();
  readonly #table: Readonly<Record<string, unknown>>;

  /**
   * @param raw the table as parsed (anything else is reported as a type issue)
   * @param path dotted path of the table (`server`, `providers.google`)
   * @param issues where problems are appended
   * @param fromEnv dotted paths whose value came from an environment override
   */
  constructor(
    raw: unknown,
    readonly path: string,
    readonly issues: ConfigIssue[],
    readonly fromEnv: ReadonlySet<string>,
  ) {
    if (raw === undefined) this.#table = {};
    else if (isTable(raw)) this.#table = raw;
    else {
      issues.push({ path, message: "must be a table" });
      this.#table = {};
    }
  }

  /** Dotted path of `key` inside this table. */
  at(key: string): string {
    return this.path ? `${this.path}.${key}` : key;
  }

  /** The raw value of `key` (marks it as known). */
  raw(key: string): unknown {
    this.#seen.add(key);
    return this.#table[key];
  }

  /** Keys present in the table. */
  keys(): string[] {
    return Object.keys(this.#table);
  }

  /** Reports a problem with `key`. */
  issue(key: string, message: string): void {
    this.issues.push({ path: this.at(key), message });
  }

  /** A string, or `fallback` when absent; an empty string counts as absent when `optional`. */
  string<T extends string | undefined>(key: string, fallback: T): string | T {
    const v = this.raw(key);
    if (v === undefined) return fallback;
    if (typeof v !== "string") {
      this.issue(key, "must be a string");
      return fallback;
    }
    return v;
  }

  /** One of `allowed`, or `fallback`. */
  oneOf<T extends string>(key: string, allowed: readonly T[], fallback: T): T {
    const v = this.string(key, fallback);
    if ((allowed as readonly string[]).includes(v)) return v as T;
    this.issue(key, `must be one of ${allowed.map((a) => `"${a}"`).join(", ")}`);
    return fallback;
  }

  /** An integer within `[min, max]`, or `fallback`. */
  int(key: string, fallback: number, min: number, max: number): number {
    let v = this.raw(key);
    if (typeof v === "string" && this.fromEnv.has(this.at(key)) && /^-?\d+$/.test(v)) {
      v = Number(v);
    }
    if (v === undefined) return fallback;
    if (typeof v === "bigint") v = Number(v);
    if (typeof v !== "number" || !Number.isInteger(v)) {
      this.issue(key, "must be an integer");
      return fallback;
    }
    if (v < min || v > max) {
      this.issue(key, `must be an integer from ${min} to ${max}`);
      return fallback;
    }
    return v;
  }

  /** A boolean, or `fallback`. */
  bool(key: string, fallback: boolean): boolean {
    let v = this.raw(key);
    if (typeof v === "string" && this.fromEnv.has(this.at(key)) && /^(true|false)$/.test(v)) {
      v = v === "true";
    }
    if (v === undefined) return fallback;
    if (typeof v !== "boolean") {
      this.issue(key, "must be true or false");
      return fallback;
    }
    return v;
  }

  /**
   * A duration in seconds within `[min, max]`: a string with units (`"900s"`, `"15m"`, `"30d"`)
   * or a bare integer meaning seconds (TOML `900`, or `900` from an environment override).
   */
  duration(key: string, fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER): number {
    let v = this.raw(key);
    if (v === undefined) return fallback;
    if (typeof v === "string" && this.fromEnv.has(this.at(key)) && /^\d+$/.test(v.trim())) {
      v = Number(v.trim());
    }
    if (typeof v === "bigint") v = Number(v);
    if (typeof v === "number") {
      if (!Number.isSafeInteger(v)) {
        this.issue(key, 'must be whole seconds or a duration string like "900s", "15m" or "30d"');
        return fallback;
      }
      if (v < min || v > max) {
        this.issue(key, `must be from ${min}s to ${max}s, got ${v}`);
        return fallback;
      }
      return v;
    }
    if (typeof v !== "string") {
      this.issue(key, 'must be whole seconds or a duration string like "900s", "15m" or "30d"');
      return fallback;
    }
    try {
      const seconds = parseDuration(v);
      if (seconds < min || seconds > max) {
        this.issue(key, `must be from ${min}s to ${max}s, got "${v}"`);
        return fallback;
      }
      return seconds;
    } catch (err) {
      this.issue(key, (err as Error).message);
      return fallback;
    }
  }

  /** A list of strings, or `fallback`. Env overrides may give a comma-separated list. */
  stringList(key: string, fallback: readonly string[]): readonly string[] {
    let v = this.raw(key);
    if (typeof v === "string" && this.fromEnv.has(this.at(key))) {
      v = v.trim().startsWith("[") ? safeJson(v) : v.split(",").map((s) => s.trim()).filter(
        Boolean,
      );
    }
    if (v === undefined) return fallback;
    if (!Array.isArray(v) || !v.every((s) => typeof s === "string")) {
      this.issue(key, "must be a list of strings");
      return fallback;
    }
    return v as string[];
  }

  /** A sub-table reader for `key`. */
  table(key: string): TableReader {
    return new TableReader(this.raw(key), this.at(key), this.issues, this.fromEnv);
  }

  /** Reports every key present but never read as unknown. Call after reading all keys. */
  done(): void {
    for (const key of Object.keys(this.#table)) {
      if (!this.#seen.has(key)) this.issue(key, "unknown key");
    }
  }
}

/** True for a plain table (object, not array/date). */
export function isTable(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
