/**
 * Running a file's end-to-end cases once per store the service runs on: Deno KV (no
 * `[storage]` section) and PostgreSQL (a fresh schema per case on one server for the file).
 *
 * @module
 */
import { startTestPostgres, type TestPostgres } from "./postgres.ts";

/** Registers cases on every store, then the step that stops the file's PostgreSQL. */
export interface StoreBackends {
  /** Registers `fn` once per store; it gets the `[storage]` TOML of that store. */
  test(name: string, fn: (storage: string) => Promise<void>): void;
  /** Registers the last step of the file: stop its PostgreSQL (call after every case). */
  stopAfterAll(): void;
}

/**
 * The store backends for one test file.
 *
 * @param label the file's test-name prefix (`webhook deliveries`)
 * @returns the registrar
 *
 * @example
 * ```ts ignore
 * const stores = storeBackends("storable text");
 * stores.test("a NUL is refused", async (storage) => {
 *   // start the server with `storage` in its TOML …
 * });
 * stores.stopAfterAll();
 * ```
 */
export function storeBackends(label: string): StoreBackends {
  let pg: TestPostgres | undefined;
  const backends: Record<string, (schema: string) => Promise<string>> = {
    kv: () => Promise.resolve(""),
    postgres: async (schema) => {
      pg ??= await startTestPostgres();
      return `[storage]\nurl = "${await pg.schema(schema)}"\n`;
    },
  };
  const slug = label.replace(/\W+/g, "_");
  let cases = 0;
  return {
    test(name, fn) {
      const n = cases++;
      for (const [backend, storage] of Object.entries(backends)) {
        Deno.test({
          name: `${label} (${backend}): ${name}`,
          // The postgres client keeps timers of its own between tests; the server is shared.
          sanitizeOps: false,
          sanitizeResources: false,
          fn: async () => await fn(await storage(`${slug}_${backend}_${n}`)),
        });
      }
    },
    stopAfterAll() {
      Deno.test({
        name: `${label}: stop the PostgreSQL server of this file`,
        sanitizeOps: false,
        sanitizeResources: false,
        async fn() {
          await pg?.close();
          pg = undefined;
        },
      });
    },
  };
}
