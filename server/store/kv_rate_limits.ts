import type { Clock } from "@org/shared";
import type { RateLimitStore } from "./rate_limits.ts";
import { expireIn } from "./kv_keys.ts";
import { forEachChunk, KV_GET_MANY_MAX } from "./kv_chunks.ts";

/** Key of one client's count in one window; expires through `expireIn` alone. */
const rateKey = (window: number, key: string): Deno.KvKey => ["rate_limits", window, key];

/** {@linkcode RateLimitStore} on Deno KV: one entry per client and window, added with checks. */
export class KvRateLimitStore implements RateLimitStore {
  /** @param kv an opened Deno KV @param clock the time source for `expireIn` */
  constructor(private readonly kv: Deno.Kv, private readonly clock: Clock) {}

  /** @inheritdoc */
  async add(
    window: number,
    counts: ReadonlyMap<string, number>,
    forgetAt: number,
  ): Promise<Map<string, number>> {
    const totals = new Map<string, number>();
    // Chunks of disjoint keys, each its own read and checked commit: independent, so run
    // concurrently (bounded).
    await forEachChunk([...counts], KV_GET_MANY_MAX, async (chunk) => {
      const keys = chunk.map(([key]) => rateKey(window, key));
      for (;;) {
        const got = await this.kv.getMany<number[]>(keys);
        const op = this.kv.atomic();
        const ttl = { expireIn: expireIn(forgetAt, this.clock.now()) };
        const sums = chunk.map(([key, n], j) => {
          const total = (got[j]!.value ?? 0) + n;
          op.check(got[j]!).set(keys[j]!, total, ttl);
          return [key, total] as const;
        });
        // Another instance added meanwhile: read again and add on top.
        if ((await op.commit()).ok) {
          for (const [key, total] of sums) totals.set(key, total);
          return;
        }
      }
    });
    return totals;
  }
}
