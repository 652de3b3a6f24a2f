import type { Store } from "../store/store.ts";
import type { Tracing } from "./tracing.ts";

/** The `db.system.name` of a store: PostgreSQL's semantic-convention name, or Deno KV. */
export type StoreSystem = "postgresql" | "deno_kv";

/**
 * `store` with every operation of every concern (`sessions.rotate`, `outbox.claim`, …) run in
 * a child span `store <concern>.<operation>` of the active span; operations outside a trace
 * (background timers, unsampled requests) run as they are, with nothing made for them. Only for a process with tracing on: without it the
 * plain store is used, so the refresh path keeps its exact cost.
 *
 * @param store the opened store
 * @param tracing where spans are made
 * @param system the store's `db.system.name`
 * @returns the same store, traced
 */
export function tracedStore(store: Store, tracing: Tracing, system: StoreSystem): Store {
  const traced: Record<string, unknown> = {};
  for (const [concern, part] of Object.entries(store)) {
    traced[concern] = typeof part === "function"
      ? traceCall(tracing, system, concern, part.bind(store))
      : tracedConcern(part as object, concern, tracing, system);
  }
  return traced as unknown as Store;
}

function tracedConcern(part: object, concern: string, tracing: Tracing, system: StoreSystem) {
  // The concerns are class instances whose methods live on their prototypes: each method is
  // wrapped once, here, on an object whose prototype is the concern (so anything else reads
  // through). A proxy would cost a trap on every call, sampled or not.
  const traced = Object.create(part) as Record<string, unknown>;
  for (let proto = part; proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      const value = (part as Record<string, unknown>)[key];
      if (key === "constructor" || typeof value !== "function" || Object.hasOwn(traced, key)) {
        continue;
      }
      traced[key] = traceCall(
        tracing,
        system,
        `${concern}.${key}`,
        (value as (...args: unknown[]) => unknown).bind(part),
      );
    }
  }
  return traced;
}

function traceCall(
  tracing: Tracing,
  system: StoreSystem,
  operation: string,
  fn: (...args: unknown[]) => unknown,
): (...args: unknown[]) => Promise<unknown> {
  const name = `store ${operation}`;
  const attributes = { "db.system.name": system, "db.operation.name": operation };
  const active = tracing.active;
  // Outside a span (an unsampled request, a background timer) the plain operation runs as it
  // is: no closure, no promise, no span is made for it.
  return (...args) =>
    active !== undefined && !active()
      ? fn(...args) as Promise<unknown>
      : tracing.inSpan(name, attributes, () => Promise.resolve(fn(...args)), LEAF);
}

const LEAF = { leaf: true } as const;
