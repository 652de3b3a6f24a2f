import assert from "node:assert/strict";
import { FixedClock } from "@org/shared";
import { K } from "./kv_keys.ts";
import { KvHousekeeping } from "./kv_housekeeping.ts";
import { FAMILY_RETENTION_MS, KvSessionStore } from "./kv_sessions.ts";
import { KvStatsStore } from "./kv_store.ts";
import type { RefreshRecord, SessionFamily } from "./sessions.ts";

const T0 = Date.UTC(2030, 0, 1);
const HOUR = 3_600_000;

function family(id: string, clock: FixedClock, ttl: number): SessionFamily {
  return {
    id,
    user_id: "usr_x",
    created_at: clock.now(),
    expires_at: clock.now() + ttl,
    revoked: false,
  };
}

function record(f: SessionFamily): RefreshRecord {
  return {
    hash: `h_${f.id}`,
    family_id: f.id,
    user_id: f.user_id,
    issued_at: f.created_at,
    expires_at: f.expires_at,
  };
}

/** A KV whose atomic `set`s are recorded with their options (to read the `expireIn` used). */
function recordingKv(kv: Deno.Kv): { kv: Deno.Kv; sets: Map<string, number | undefined> } {
  const sets = new Map<string, number | undefined>();
  const wrap = (op: Deno.AtomicOperation): Deno.AtomicOperation => {
    const proxy: Deno.AtomicOperation = new Proxy(op, {
      get(target, prop) {
        if (prop === "set") {
          return (key: Deno.KvKey, value: unknown, options?: { expireIn?: number }) => {
            sets.set(JSON.stringify(key), options?.expireIn);
            target.set(key, value, options);
            return proxy;
          };
        }
        const v = Reflect.get(target, prop, target);
        return typeof v === "function"
          ? (...args: unknown[]) => {
            const r = v.apply(target, args);
            return r === target ? proxy : r;
          }
          : v;
      },
    });
    return proxy;
  };
  const proxied = new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") return () => wrap(target.atomic());
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { kv: proxied, sets };
}

Deno.test("KvSessionStore keeps a family and its user-index entry stored a margin past the session end, refresh records exactly to it", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new FixedClock(T0);
  const rec = recordingKv(kv);
  const store = new KvSessionStore(rec.kv, clock);
  const f = family("ses_a", clock, HOUR);
  await store.create(f, record(f));
  assert.ok(FAMILY_RETENTION_MS >= 7 * 24 * HOUR);
  assert.equal(rec.sets.get(JSON.stringify(K.family("ses_a"))), HOUR + FAMILY_RETENTION_MS);
  assert.equal(
    rec.sets.get(JSON.stringify(K.familyOfUser("usr_x", "ses_a"))),
    HOUR + FAMILY_RETENTION_MS,
  );
  assert.equal(rec.sets.get(JSON.stringify(K.refresh("h_ses_a"))), HOUR);
  clock.advance(HOUR / 2);
  assert.equal(await store.revokeFamily("ses_a", clock.now()), true);
  assert.equal(rec.sets.get(JSON.stringify(K.family("ses_a"))), HOUR / 2 + FAMILY_RETENTION_MS);
});

Deno.test("KvSessionStore: a family past its end is not handed out, cannot be revoked, and leaves the live count at the sweep", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new FixedClock(T0);
  const store = new KvSessionStore(kv, clock);
  const stats = new KvStatsStore(kv);
  const housekeeping = new KvHousekeeping(kv);
  const f = family("ses_a", clock, HOUR);
  await store.create(f, record(f));
  assert.equal((await stats.read()).sessions, 1);
  clock.advance(HOUR);
  assert.equal(await store.getFamily("ses_a"), undefined);
  assert.ok((await kv.get(K.family("ses_a"))).value, "still stored for the sweep to see");
  assert.equal(await store.revokeFamily("ses_a", clock.now()), false);
  assert.equal(await store.revokeAllOfUser("usr_x", clock.now()), 0);
  assert.equal((await stats.read()).sessions, 1);
  assert.equal(await housekeeping.sweepExpired(clock.now()), 1);
  assert.equal((await stats.read()).sessions, 0);
  assert.equal((await kv.get(K.family("ses_a"))).value, null);
  assert.deepEqual(await store.familiesOfUser("usr_x"), []);
  assert.equal(await housekeeping.sweepExpired(clock.now()), 0);
  assert.equal((await stats.read()).sessions, 0);
});

Deno.test("KvHousekeeping.sweepExpired() deletes at most `limit` families and `limit` refresh records per call", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new FixedClock(T0);
  const store = new KvSessionStore(kv, clock);
  const stats = new KvStatsStore(kv);
  const housekeeping = new KvHousekeeping(kv);
  for (let i = 0; i < 5; i++) {
    const f = family(`ses_${i}`, clock, HOUR);
    await store.create(f, record(f));
  }
  const live = family("ses_live", clock, 10 * HOUR);
  await store.create(live, record(live));
  clock.advance(HOUR);
  const refreshCount = async () => {
    let n = 0;
    for await (const _ of kv.list({ prefix: K.refreshPrefix })) n++;
    return n;
  };
  assert.equal(await housekeeping.sweepExpired(clock.now(), 2), 2);
  assert.equal((await stats.read()).sessions, 4);
  assert.equal(await refreshCount(), 4);
  assert.equal(await housekeeping.sweepExpired(clock.now(), 2), 2);
  assert.equal(await housekeeping.sweepExpired(clock.now(), 2), 1);
  assert.equal(await housekeeping.sweepExpired(clock.now(), 2), 0);
  assert.equal((await stats.read()).sessions, 1);
  assert.equal(await refreshCount(), 1);
  assert.ok(await store.getFamily("ses_live"));
});
