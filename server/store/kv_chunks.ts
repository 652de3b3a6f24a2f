/**
 * Deno KV's per-call limits and the one way the KV adapters split work to fit them: a
 * `getMany` reads at most {@linkcode KV_GET_MANY_MAX} keys, an atomic commit carries at most
 * {@linkcode KV_ATOMIC_MAX_CHECKS} checks and {@linkcode KV_ATOMIC_MAX_MUTATIONS} mutations
 * (Deno 2.9.6 refuses one more: `Too many ranges (max 10)`, `Too many checks (max 100)`,
 * `Too many mutations (max 1000)`).
 *
 * @module
 */
import { mapLimited } from "@org/shared";

/** Most keys one `kv.getMany` reads. */
export const KV_GET_MANY_MAX = 10;
/** Most checks one atomic commit carries. */
export const KV_ATOMIC_MAX_CHECKS = 100;
/** Most mutations (set, delete, sum, enqueue, …) one atomic commit carries. */
export const KV_ATOMIC_MAX_MUTATIONS = 1000;

/**
 * Most chunks in flight at once: independent reads overlap their round trips (a remote KV is
 * one network round trip each) without one call flooding the store.
 */
export const KV_CHUNKS_IN_FLIGHT = 4;

/**
 * `items` cut into runs of at most `size`, in order.
 *
 * @example
 * ```ts
 * chunks([1, 2, 3, 4, 5], 2); // [[1, 2], [3, 4], [5]]
 * ```
 */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunk size ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Runs `fn` on each chunk of `items`, at most `inFlight` chunks at once; only for chunks that
 * are independent of each other (disjoint keys). The first failure is thrown once the chunks
 * already started have settled; no chunk starts after it.
 *
 * @param items what to split
 * @param size most items per chunk
 * @param fn the work on one chunk
 * @param inFlight most chunks at once (1: one after another)
 * @returns each chunk's result, in chunk order
 */
export async function forEachChunk<T, R>(
  items: readonly T[],
  size: number,
  fn: (chunk: T[]) => Promise<R>,
  inFlight = KV_CHUNKS_IN_FLIGHT,
): Promise<R[]> {
  return await mapLimited(chunks(items, size), inFlight, (chunk) => fn(chunk));
}

/**
 * `kv.getMany` over any number of keys: chunks of {@linkcode KV_GET_MANY_MAX}, read
 * concurrently (bounded). Not one snapshot: each chunk is read at its own moment, so only for
 * reads that need no consistency across chunks.
 *
 * @param kv an opened Deno KV
 * @param keys the keys to read
 * @returns one entry per key, in key order
 */
export async function getManyChunked<T>(
  kv: Deno.Kv,
  keys: readonly Deno.KvKey[],
): Promise<Deno.KvEntryMaybe<T>[]> {
  const parts = await forEachChunk(keys, KV_GET_MANY_MAX, (part) => kv.getMany<T[]>(part));
  return parts.flat();
}

/**
 * Atomic operations filled as a listing goes and committed every `perCommit` items, for
 * sweeps whose items are independent (a failed check skips that commit's items; the next
 * sweep finds them again). Size `perCommit` so its checks and mutations stay within
 * {@linkcode KV_ATOMIC_MAX_CHECKS} and {@linkcode KV_ATOMIC_MAX_MUTATIONS}.
 *
 * @example
 * ```ts
 * import { AtomicBatches } from "./kv_chunks.ts";
 * const kv = await Deno.openKv(":memory:");
 * const batches = new AtomicBatches(kv, 100);
 * for await (const e of kv.list({ prefix: ["old"] })) {
 *   await batches.add((op) => op.check(e).delete(e.key));
 * }
 * await batches.flush();
 * kv.close();
 * ```
 */
export class AtomicBatches {
  #op: Deno.AtomicOperation;
  #size = 0;

  /**
   * @param kv an opened Deno KV
   * @param perCommit most items per commit
   */
  constructor(private readonly kv: Deno.Kv, private readonly perCommit: number) {
    if (!Number.isInteger(perCommit) || perCommit < 1) {
      throw new RangeError(`perCommit ${perCommit}`);
    }
    this.#op = kv.atomic();
  }

  /** Adds one item's checks and mutations; commits when the batch is full. */
  async add(queue: (op: Deno.AtomicOperation) => unknown): Promise<void> {
    queue(this.#op);
    if (++this.#size === this.perCommit) await this.flush();
  }

  /** Commits what was added since the last commit, if anything. */
  async flush(): Promise<void> {
    if (this.#size === 0) return;
    const op = this.#op;
    this.#op = this.kv.atomic();
    this.#size = 0;
    await op.commit();
  }
}
