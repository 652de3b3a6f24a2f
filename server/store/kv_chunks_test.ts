import assert from "node:assert/strict";
import {
  AtomicBatches,
  chunks,
  forEachChunk,
  getManyChunked,
  KV_ATOMIC_MAX_CHECKS,
  KV_ATOMIC_MAX_MUTATIONS,
  KV_GET_MANY_MAX,
} from "./kv_chunks.ts";

Deno.test("chunks() cuts in order, the last run shorter; refuses a size below one", () => {
  assert.deepEqual(chunks([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);
  assert.deepEqual(chunks([], 10), []);
  assert.deepEqual(chunks([1, 2], 10), [[1, 2]]);
  assert.throws(() => chunks([1], 0), RangeError);
  assert.throws(() => chunks([1], 1.5), RangeError);
});

Deno.test("forEachChunk() keeps chunk order and never runs more than inFlight chunks at once", async () => {
  let running = 0;
  let most = 0;
  const waiting: (() => void)[] = [];
  const done = forEachChunk(Array.from({ length: 25 }, (_, i) => i), 3, async (part) => {
    most = Math.max(most, ++running);
    // Chunks finish in reverse order of their start when released.
    await new Promise<void>((resolve) => waiting.push(resolve));
    running--;
    return part.reduce((a, b) => a + b, 0);
  }, 2);
  // Release whatever waits until all nine chunks have run.
  let released = 0;
  while (released < 9) {
    await Promise.resolve();
    const next = waiting.pop();
    if (next) {
      next();
      released++;
    }
  }
  const sums = await done;
  assert.deepEqual(sums, [3, 12, 21, 30, 39, 48, 57, 66, 24]);
  assert.equal(most, 2);
});

Deno.test("forEachChunk() throws the first failure and starts no chunk after it", async () => {
  const started: number[] = [];
  await assert.rejects(
    forEachChunk([0, 1, 2, 3, 4, 5], 1, async ([i]) => {
      started.push(i!);
      await Promise.resolve();
      if (i === 1) throw new Error("chunk 1 failed");
      return i;
    }, 2),
    /chunk 1 failed/,
  );
  // Chunks 0 and 1 ran together; 2 began as 0 finished, before 1 failed; none after.
  assert.deepEqual(started, [0, 1, 2]);
});

Deno.test("getManyChunked() reads past getMany's limit, one entry per key in key order", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const n = 3 * KV_GET_MANY_MAX + 7;
    for (let i = 0; i < n; i += 2) await kv.set(["k", i], i * 10);
    // One plain getMany of these keys is refused: the helper is what makes it work.
    const keys = Array.from({ length: n }, (_, i): Deno.KvKey => ["k", i]);
    await assert.rejects(kv.getMany(keys), /Too many ranges/);
    const got = await getManyChunked<number>(kv, keys);
    assert.equal(got.length, n);
    got.forEach((e, i) => {
      assert.deepEqual(e.key, ["k", i]);
      assert.equal(e.value, i % 2 === 0 ? i * 10 : null);
    });
    assert.deepEqual(await getManyChunked(kv, []), []);
  } finally {
    kv.close();
  }
});

Deno.test("AtomicBatches commits every perCommit items and the rest on flush", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const n = 2 * KV_ATOMIC_MAX_CHECKS + 5;
    for (let i = 0; i < n; i++) await kv.set(["old", i], i);
    // One atomic of all these checks is refused by KV: the batches stay within it.
    const all = kv.atomic();
    for await (const e of kv.list({ prefix: ["old"] })) all.check(e).delete(e.key);
    await assert.rejects(all.commit(), /Too many checks/);
    const batches = new AtomicBatches(kv, KV_ATOMIC_MAX_CHECKS);
    let added = 0;
    for await (const e of kv.list({ prefix: ["old"] })) {
      await batches.add((op) => op.check(e).delete(e.key));
      added++;
      // Full batches are committed as they fill: the first 100 are gone once the 100th is in.
      if (added === KV_ATOMIC_MAX_CHECKS) {
        assert.equal((await kv.get(["old", 0])).value, null);
        assert.equal((await kv.get(["old", KV_ATOMIC_MAX_CHECKS])).value, KV_ATOMIC_MAX_CHECKS);
      }
    }
    assert.equal((await kv.get(["old", n - 1])).value, n - 1);
    await batches.flush();
    await batches.flush();
    const left = await Array.fromAsync(kv.list({ prefix: ["old"] }));
    assert.deepEqual(left, []);
    assert.throws(() => new AtomicBatches(kv, 0), RangeError);
  } finally {
    kv.close();
  }
});

Deno.test("the limits are Deno KV's own: one more key, check or mutation is refused", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const keys = (n: number) => Array.from({ length: n }, (_, i): Deno.KvKey => ["k", i]);
    assert.equal((await kv.getMany(keys(KV_GET_MANY_MAX))).length, KV_GET_MANY_MAX);
    await assert.rejects(kv.getMany(keys(KV_GET_MANY_MAX + 1)), /Too many ranges/);
    const checks = (n: number) => {
      const op = kv.atomic();
      for (const key of keys(n)) op.check({ key, versionstamp: null });
      return op.commit();
    };
    assert.equal((await checks(KV_ATOMIC_MAX_CHECKS)).ok, true);
    await assert.rejects(checks(KV_ATOMIC_MAX_CHECKS + 1), /Too many checks/);
    const sets = (n: number) => {
      const op = kv.atomic();
      for (const key of keys(n)) op.set(key, 1);
      return op.commit();
    };
    assert.equal((await sets(KV_ATOMIC_MAX_MUTATIONS)).ok, true);
    await assert.rejects(sets(KV_ATOMIC_MAX_MUTATIONS + 1), /Too many mutations/);
  } finally {
    kv.close();
  }
});
