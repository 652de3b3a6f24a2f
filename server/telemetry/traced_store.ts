import type { Store } from "../store/store.ts";
import type { Tracing } from "./tracing.ts";

/** The `db.system.name` of a store: PostgreSQL's semantic-convention name, or Deno KV. */
export type StoreSystem = "postgresql" | "deno_kv";

/**
 * `store` with every operation of every concern (`sessions.rotate`, `outbox.claim`, …) run in
 * a child span `store <concern>.<operation>` of the active span; operations outside a trace
 * (background timers) run as they are. Only for a process with tracing on: without it the
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
  const wrapped = new Map<PropertyKey, unknown>();
  // A proxy, because the concerns are class instances whose methods live on their prototypes.
  return new Proxy(part, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== "function" || typeof key !== "string") return value;
      let fn = wrapped.get(key);
      if (fn === undefined) {
        fn = traceCall(tracing, system, `${concern}.${key}`, value.bind(target));
        wrapped.set(key, fn);
      }
      return fn;
    },
  });
}

function traceCall(
  tracing: Tracing,
  system: StoreSystem,
  operation: string,
  fn: (...args: unknown[]) => unknown,
): (...args: unknown[]) => Promise<unknown> {
  const attributes = { "db.system.name": system, "db.operation.name": operation };
  return (...args) =>
    tracing.inSpan(`store ${operation}`, attributes, () => Promise.resolve(fn(...args)), {
      leaf: true,
    });
}
