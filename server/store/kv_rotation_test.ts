import assert from "node:assert/strict";
import { FixedClock } from "@org/shared";
import { KvSessionStore } from "./kv_sessions.ts";
import { KvUserStore } from "./kv_users.ts";
import type { RefreshRecord, RefreshSnapshot, RotateOutcome, SessionFamily } from "./sessions.ts";
import type { UserRecord } from "./users.ts";

const NOW = 1_700_000_000_000;

async function withSessions(
  n: number,
  fn: (store: KvSessionStore, records: RefreshRecord[], kv: Deno.Kv) => Promise<void>,
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvSessionStore(kv, new FixedClock(NOW));
    const records: RefreshRecord[] = [];
    for (let i = 0; i < n; i++) {
      const family: SessionFamily = {
        id: `ses_${i}`,
        user_id: "usr_1",
        created_at: NOW,
        expires_at: NOW + 3_600_000,
        revoked: false,
      };
      const record: RefreshRecord = {
        hash: `h${i}`,
        family_id: family.id,
        user_id: "usr_1",
        issued_at: NOW,
        expires_at: family.expires_at,
      };
      await store.create(family, record);
      records.push(record);
    }
    await fn(store, records, kv);
  } finally {
    kv.close();
  }
}

function successorOf(r: RefreshRecord, tag: string): [RefreshRecord, RefreshRecord] {
  const next = { ...r, hash: `${r.hash}-${tag}` };
  return [{ ...r, retired_at: NOW, successor: { hash: next.hash, sealed: tag } }, next];
}

async function rotate(store: KvSessionStore, snap: RefreshSnapshot, tag: string): Promise<boolean> {
  return await outcome(store, snap, tag) === "rotated";
}

function outcome(
  store: KvSessionStore,
  snap: RefreshSnapshot,
  tag: string,
): Promise<RotateOutcome> {
  const [retired, next] = successorOf(snap.record, tag);
  return store.rotate(snap, retired, next);
}

Deno.test("rotate(): concurrent rotations of different tokens all commit", async () => {
  await withSessions(40, async (store, records) => {
    const snaps = await Promise.all(records.map((r) => store.readForRefresh(r.hash)));
    const oks = await Promise.all(snaps.map((s) => rotate(store, s!, "a")));
    assert.deepEqual(oks, Array(40).fill(true));
    for (const r of records) {
      const after = await store.readForRefresh(r.hash);
      assert.equal(after?.record.retired_at, NOW);
      assert.equal(after?.successorLive, true);
    }
  });
});

/** `kv` with its atomic commits counted: how many, and most at once. */
function countCommits(kv: Deno.Kv): { kv: Deno.Kv; commits: number; maxInFlight: number } {
  const stats = { kv, commits: 0, maxInFlight: 0 };
  let inFlight = 0;
  stats.kv = new Proxy(kv, {
    get(target, prop) {
      if (prop !== "atomic") {
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return () => {
        const op = target.atomic();
        const commit = op.commit.bind(op);
        op.commit = async () => {
          stats.commits++;
          stats.maxInFlight = Math.max(stats.maxInFlight, ++inFlight);
          try {
            return await commit();
          } finally {
            inFlight--;
          }
        };
        return op;
      };
    },
  });
  return stats;
}

Deno.test("rotate(): group commits, a second one in flight only for a full batch", async () => {
  await withSessions(60, async (_, records, kv) => {
    const counted = countCommits(kv);
    const store = new KvSessionStore(counted.kv, new FixedClock(NOW));
    const snaps = await Promise.all(records.map((r) => store.readForRefresh(r.hash)));
    const oks = await Promise.all(snaps.map((s) => rotate(store, s!, "a")));
    assert.deepEqual(oks, Array(60).fill(true));
    // The first alone (nothing was in flight), a full 25 beside it, the next 25 once the first
    // is done, and the last 9 only when nothing is in flight.
    assert.deepEqual({ commits: counted.commits, max: counted.maxInFlight }, {
      commits: 4,
      max: 2,
    });
  });
});

Deno.test("rotate(): two rotations of one token at once: exactly one wins, the rest raced", async () => {
  await withSessions(3, async (store, records) => {
    const snap = (await store.readForRefresh(records[0]!.hash))!;
    const others = await Promise.all(records.slice(1).map((r) => store.readForRefresh(r.hash)));
    const outcomes = await Promise.all([
      outcome(store, snap, "a"),
      outcome(store, snap, "b"),
      outcome(store, snap, "c"),
      ...others.map((s) => outcome(store, s!, "x")),
    ]);
    assert.deepEqual(outcomes, ["rotated", "raced", "raced", "rotated", "rotated"]);
    const oks = outcomes.map((o) => o === "rotated");
    const after = (await store.readForRefresh(records[0]!.hash))!;
    const winner = ["a", "b", "c"][oks.indexOf(true)];
    assert.equal(after.record.successor?.sealed, winner);
  });
});

Deno.test("rotate(): a stale snapshot fails alone; its batch mates still commit", async () => {
  await withSessions(4, async (store, records) => {
    const stale = (await store.readForRefresh(records[0]!.hash))!;
    assert.equal(await rotate(store, stale, "first"), true);
    const fresh = await Promise.all(records.slice(1).map((r) => store.readForRefresh(r.hash)));
    const oks = await Promise.all([
      ...fresh.map((s) => rotate(store, s!, "y")),
      rotate(store, stale, "second"),
    ]);
    assert.deepEqual(oks, [true, true, true, false]);
  });
});

Deno.test("rotate(): a family revoked after the read makes the rotation fail", async () => {
  await withSessions(1, async (store, records) => {
    const snap = (await store.readForRefresh(records[0]!.hash))!;
    await store.revokeFamily("ses_0", NOW);
    assert.equal(await rotate(store, snap, "a"), false);
  });
});

Deno.test("readForRefresh(): a store that did not issue the token reads it all the same", async () => {
  await withSessions(1, async (store, records, kv) => {
    // A second store object on the same KV has no hints: the two-round-trip path.
    const other = new KvSessionStore(kv, new FixedClock(NOW));
    const snap = await other.readForRefresh(records[0]!.hash);
    assert.equal(snap?.family?.id, "ses_0");
    assert.equal(await other.readForRefresh("nope"), undefined);
    assert.equal(await rotate(other, snap!, "a"), true);
    const retired = await other.readForRefresh(records[0]!.hash);
    assert.equal(retired?.successorLive, true);
    const retiredViaHint = await store.readForRefresh(records[0]!.hash);
    assert.equal(retiredViaHint?.successorLive, true);
  });
});

const USER: UserRecord = {
  id: "usr_1",
  provider: "p",
  external_id: "1",
  email: "a@example.com",
  display_name: "A",
  status: "active",
  metadata: {},
  claims: {},
  created_at: NOW,
  updated_at: NOW,
};

/** Rotates `record` once and returns the successor's remembered snapshot. */
async function rotatedOnce(store: KvSessionStore, record: RefreshRecord): Promise<RefreshSnapshot> {
  const snap = (await store.readForRefresh(record.hash))!;
  const [retired, next] = successorOf(snap.record, "a");
  assert.equal(await store.rotate(snap, retired, next), "rotated");
  // The retired token is read from the store; the successor answered from memory (the same
  // snapshot every time, where every read makes a new one).
  assert.equal((await store.readForRefresh(record.hash))?.record.retired_at, NOW);
  const remembered = await store.readForRefresh(next.hash);
  assert.ok(remembered);
  assert.equal(await store.readForRefresh(next.hash), remembered);
  return remembered;
}

Deno.test("readForRefresh(): after a rotation, the successor's snapshot is remembered and equals a fresh read", async () => {
  await withSessions(1, async (store, records, kv) => {
    await new KvUserStore(kv, new FixedClock(NOW)).create(USER);
    const remembered = await rotatedOnce(store, records[0]!);
    const read = await new KvSessionStore(kv, new FixedClock(NOW)).readForRefresh(
      remembered.record.hash,
    );
    assert.deepEqual(remembered, read);
    assert.equal(await rotate(store, remembered, "b"), true);
  });
});

Deno.test("rotate(): a remembered snapshot fails, unproven, once the user, the family or the record changed", async () => {
  await withSessions(3, async (store, records, kv) => {
    const users = new KvUserStore(kv, new FixedClock(NOW));
    await users.create(USER);
    const [a, b, c] = await Promise.all(records.map((r) => rotatedOnce(store, r)));
    // Another instance on the same KV: the user changes, a family is revoked, a token rotated.
    const other = new KvSessionStore(kv, new FixedClock(NOW));
    await users.update(USER.id, (u) => ({ ...u, claims: { tier: "pro" } }));
    assert.equal(await outcome(store, a!, "x"), "unproven");
    // What a read of the store gives (this store would still answer from its memory).
    const fresh = await Promise.all([b!, c!].map((s) => other.readForRefresh(s.record.hash)));
    const [b2, c2] = await Promise.all(
      fresh.map(async (s) => {
        assert.equal(await rotate(store, s!, "y"), true);
        return (await store.readForRefresh(`${s!.record.hash}-y`))!;
      }),
    );
    await other.revokeFamily(b2!.record.family_id, NOW);
    assert.equal(await outcome(store, b2!, "z"), "unproven");
    assert.equal(await rotate(other, (await other.readForRefresh(c2!.record.hash))!, "w"), true);
    assert.equal(await outcome(store, c2!, "z"), "unproven");
    // A failed snapshot is forgotten: the next refresh reads the store.
    for (const s of [a!, b2!, c2!]) {
      const read = await store.readForRefresh(s.record.hash);
      assert.notEqual(read, s);
      assert.deepEqual(read, await other.readForRefresh(s.record.hash));
    }
  });
});
