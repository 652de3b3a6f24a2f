/**
 * One conformance suite for the {@linkcode Store} interfaces, run against every implementation:
 * Deno KV in memory, Deno KV in a file, and PostgreSQL (one server for this file, a schema per
 * test). Each case may open a second store on the same storage, as a second instance would.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cryptoRandom, FixedClock } from "@org/shared";
import { AuditTrail } from "../audit/audit_trail.ts";
import { takeAttempt } from "../auth/lockout.ts";
import { startTestPostgres, type TestPostgres } from "../../tests/support/postgres.ts";
import { isStorableText } from "../users/storable_text.ts";
import { createKvStore } from "./kv_store.ts";
import { openPostgres, type Sql } from "./pg_connection.ts";
import { migrate } from "./pg_migrations.ts";
import { createPgStore } from "./pg_store.ts";
import type { AuditRecord } from "./audit.ts";
import type { LockoutState } from "./lockout.ts";
import type { DeliveryAttempt, OutboxMessage } from "./outbox.ts";
import type { RefreshRecord, SessionFamily } from "./sessions.ts";
import type { Store } from "./store.ts";
import type { UserRecord } from "./users.ts";

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;

/** Stores on one storage: `another()` is a second instance on the same data. */
interface Opened {
  readonly store: Store;
  another(): Promise<Store>;
  close(): Promise<void>;
}

type Backend = (clock: FixedClock, name: string) => Promise<Opened>;

let pg: TestPostgres | undefined;

const BACKENDS: Record<string, Backend> = {
  "kv :memory:": async (clock) => {
    const kv = await Deno.openKv(":memory:");
    return {
      store: createKvStore(kv, clock),
      another: () => Promise.resolve(createKvStore(kv, clock)),
      close: () => Promise.resolve(kv.close()),
    };
  },
  "kv file": async (clock) => {
    const dir = await Deno.makeTempDir({ prefix: "te-conformance-" });
    const kv = await Deno.openKv(join(dir, "store.kv"));
    return {
      store: createKvStore(kv, clock),
      another: () => Promise.resolve(createKvStore(kv, clock)),
      close: async () => {
        kv.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  },
  "postgres": async (clock, name) => {
    pg ??= await startTestPostgres();
    const url = await pg.schema(name.replace(/\W+/g, "_").slice(0, 30));
    const pools: Sql[] = [];
    const open = () => {
      const sql = openPostgres({ url, poolSize: 8 });
      pools.push(sql);
      return createPgStore(sql, clock);
    };
    const first = open();
    await migrate(pools[0]!);
    return {
      store: first,
      another: () => Promise.resolve(open()),
      close: async () => {
        await Promise.all(pools.map((p) => p.end()));
      },
    };
  },
};

/** Runs `fn` as one test per backend. */
function conformance(
  name: string,
  fn: (o: Opened, clock: FixedClock) => Promise<void>,
): void {
  for (const [backend, open] of Object.entries(BACKENDS)) {
    Deno.test({
      name: `store conformance (${backend}): ${name}`,
      // The postgres client keeps timers of its own between tests; the server is shared.
      sanitizeOps: false,
      sanitizeResources: false,
      async fn() {
        const clock = new FixedClock(NOW);
        const opened = await open(clock, name);
        try {
          await fn(opened, clock);
        } finally {
          await opened.close();
        }
      },
    });
  }
}

function user(n: number, over: Partial<UserRecord> = {}): UserRecord {
  return {
    id: `usr_${String(n).padStart(26, "0")}`,
    provider: "idp",
    external_id: `ext-${n}`,
    email: `u${n}@example.com`,
    display_name: `User ${n}`,
    status: "active",
    metadata: { n },
    claims: {},
    created_at: NOW,
    updated_at: NOW,
    ...over,
  };
}

/** Session `n` of user 1 (already stored), stored. */
async function storedSession(store: Store, n: number): Promise<[SessionFamily, RefreshRecord]> {
  const [family, refresh] = session(n, user(1).id);
  await store.sessions.create(family, refresh);
  return [family, refresh];
}

function session(n: number, userId: string, ttl = HOUR): [SessionFamily, RefreshRecord] {
  const family: SessionFamily = {
    id: `ses_${n}`,
    user_id: userId,
    created_at: NOW,
    expires_at: NOW + ttl,
    revoked: false,
  };
  const refresh: RefreshRecord = {
    hash: `hash-${n}`,
    family_id: family.id,
    user_id: userId,
    issued_at: NOW,
    expires_at: family.expires_at,
  };
  return [family, refresh];
}

function successor(r: RefreshRecord, tag: string, at = NOW): [RefreshRecord, RefreshRecord] {
  const next: RefreshRecord = { ...r, hash: `${r.hash}-${tag}`, issued_at: at };
  delete (next as { retired_at?: number }).retired_at;
  delete (next as { successor?: unknown }).successor;
  return [{ ...r, retired_at: at, successor: { hash: next.hash, sealed: `sealed-${tag}` } }, next];
}

/** Non-zero counters only: KV keeps a zero counter once a status was seen. */
function nonZero(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).filter(([, n]) => n !== 0));
}

conformance(
  "users are unique by id and by (provider, external_id), updated and listed in id order",
  async ({ store }) => {
    const { users } = store;
    assert.deepEqual(await users.create(user(1)), { ok: true });
    assert.deepEqual(await users.create(user(1, { external_id: "other" })), {
      ok: false,
      reason: "conflict",
    });
    assert.deepEqual(await users.create(user(2, { external_id: "ext-1" })), {
      ok: false,
      reason: "conflict",
    });
    await users.create(user(2));
    await users.create(user(3));
    assert.deepEqual(await users.get(user(1).id), user(1));
    assert.deepEqual(await users.findByExternalId("idp", "ext-2"), user(2));
    assert.equal(await users.findByExternalId("idp", "nope"), undefined);
    const changed = await users.update(user(2).id, (u) => ({ ...u, status: "suspended" }));
    assert.equal(changed?.status, "suspended");
    assert.equal((await users.get(user(2).id))?.status, "suspended");
    assert.equal(await users.update("usr_missing", (u) => u), undefined);
    const page1 = await users.list(undefined, 2);
    const page2 = await users.list(page1.at(-1)!.id, 2);
    assert.deepEqual([...page1, ...page2].map((u) => u.id), [1, 2, 3].map((n) => user(n).id));
    assert.deepEqual(nonZero((await store.stats.read()).users), { active: 2, suspended: 1 });
  },
);

conformance(
  "sessions: getFamilies reads the live families of many ids at once, past one KV getMany",
  async ({ store }, clock) => {
    await store.users.create(user(1));
    const families: SessionFamily[] = [];
    for (let n = 1; n <= 12; n++) {
      const [family, refresh] = session(n, user(1).id, n === 12 ? 1_000 : HOUR);
      await store.sessions.create(family, refresh);
      families.push(family);
    }
    const ids = [...families.map((f) => f.id), "ses_missing"];
    assert.deepEqual(await store.sessions.getFamilies([]), []);
    const byId = (fs: SessionFamily[]) => fs.toSorted((a, b) => a.id.localeCompare(b.id));
    assert.deepEqual(byId(await store.sessions.getFamilies(ids)), byId(families));
    clock.set(NOW + 2_000);
    assert.deepEqual(
      byId(await store.sessions.getFamilies(ids)),
      byId(families.slice(0, 11)),
      "an expired family is left out, as getFamily leaves it out",
    );
  },
);

conformance("concurrent user updates on two instances all apply", async ({ store, another }) => {
  const other = await another();
  await store.users.create(user(1, { metadata: { count: 0 } }));
  const bump = (s: Store) =>
    s.users.update(user(1).id, (u) => ({
      ...u,
      metadata: { count: (u.metadata.count as number) + 1 },
    }));
  await Promise.all(Array.from({ length: 20 }, (_, i) => bump(i % 2 ? store : other)));
  assert.equal((await store.users.get(user(1).id))?.metadata.count, 20);
});

conformance(
  "sessions: created, read, revoked once, listed and revoked per user, counted",
  async ({ store }) => {
    const { sessions } = store;
    await store.users.create(user(1));
    const [f1, r1] = await storedSession(store, 1);
    const [f2] = await storedSession(store, 2);
    assert.deepEqual(await sessions.getFamily(f1.id), f1);
    assert.deepEqual(await sessions.getRefresh(r1.hash), r1);
    assert.equal(await sessions.getRefresh("nope"), undefined);
    assert.deepEqual(await sessions.familiesOfUser(user(1).id), [f1.id, f2.id]);
    assert.equal((await store.stats.read()).sessions, 2);
    assert.equal(await sessions.revokeFamily(f1.id, NOW + 5), true);
    assert.equal(await sessions.revokeFamily(f1.id, NOW + 6), false);
    assert.equal(await sessions.revokeFamily("ses_missing", NOW), false);
    const revoked = await sessions.getFamily(f1.id);
    assert.equal(revoked?.revoked, true);
    assert.equal(revoked?.revoked_at, NOW + 5);
    assert.equal(await sessions.revokeAllOfUser(user(1).id, NOW + 7), 1);
    assert.equal(await sessions.revokeAllOfUser(user(1).id, NOW + 8), 0);
    assert.equal((await store.stats.read()).sessions, 0);
  },
);

conformance(
  "sessions: a use is recorded apart from the family, so a rotation on it still commits",
  async ({ store }) => {
    const { sessions } = store;
    await store.users.create(user(1));
    const [f1, r1] = session(1, user(1).id);
    const [f2] = session(2, user(1).id);
    const device = { user_agent: "Phone/1", ip_prefix: "203.0.113.0/24" };
    await sessions.create({ ...f1, ...device, client: { provider: "p", client_id: "c" } }, r1);
    assert.deepEqual(await sessions.lastUsed([f1.id, f2.id]), new Map());
    assert.deepEqual((await sessions.getFamily(f1.id))?.client, { provider: "p", client_id: "c" });
    assert.equal((await sessions.getFamily(f1.id))?.user_agent, "Phone/1");
    const snap = (await sessions.readForRefresh(r1.hash))!;
    await sessions.markUsed(f1, NOW + 60_000);
    assert.deepEqual(await sessions.lastUsed([f1.id, f2.id]), new Map([[f1.id, NOW + 60_000]]));
    assert.equal(await sessions.rotate(snap, ...successor(r1, "a")), "rotated");
    await sessions.markUsed(f1, NOW + 120_000);
    assert.equal((await sessions.lastUsed([f1.id])).get(f1.id), NOW + 120_000);
    assert.deepEqual(await sessions.lastUsed([]), new Map());
    // More families than one KV read takes (getMany: 10 keys): every one answered, in full.
    const many = Array.from({ length: 25 }, (_, i) => session(100 + i, user(1).id));
    for (const [f, r] of many) await sessions.create(f, r);
    for (const [i, [f]] of many.entries()) if (i % 3 === 0) await sessions.markUsed(f, NOW + i);
    assert.deepEqual(
      await sessions.lastUsed(many.map(([f]) => f.id)),
      new Map(many.filter((_, i) => i % 3 === 0).map(([f], k) => [f.id, NOW + 3 * k])),
    );
  },
);

conformance(
  "readForRefresh + rotate: one rotation, a retired record naming its live successor",
  async ({ store, another }) => {
    const { sessions } = store;
    await store.users.create(user(1));
    const [f, r] = await storedSession(store, 1);
    const snap = (await sessions.readForRefresh(r.hash))!;
    assert.deepEqual(snap.record, r);
    assert.deepEqual(snap.family, f);
    assert.deepEqual(snap.user, user(1));
    assert.equal(snap.successorLive, undefined);
    assert.equal(await sessions.readForRefresh("nope"), undefined);
    const [retired, next] = successor(r, "a");
    assert.equal(await sessions.rotate(snap, retired, next), "rotated");
    // The same snapshot cannot rotate twice.
    const [retired2, next2] = successor(r, "b");
    assert.notEqual(await sessions.rotate(snap, retired2, next2), "rotated");
    // Another instance reads what was committed.
    const fresh = (await (await another()).sessions.readForRefresh(r.hash))!;
    assert.deepEqual(fresh.record, retired);
    assert.equal(fresh.successorLive, true);
    assert.equal(await sessions.getRefresh(next2.hash), undefined);
    // Once the successor is rotated too, the first token's successor is no longer live.
    const nextSnap = (await sessions.readForRefresh(next.hash))!;
    assert.equal(nextSnap.record.retired_at, undefined);
    const [retiredNext, third] = successor(next, "c");
    assert.equal(await sessions.rotate(nextSnap, retiredNext, third), "rotated");
    assert.equal((await sessions.readForRefresh(r.hash))!.successorLive, false);
  },
);

conformance(
  "rotate: 50 concurrent rotations of one token on two instances commit exactly one",
  async ({ store, another }) => {
    const other = await another();
    await store.users.create(user(1));
    const [, r] = await storedSession(store, 1);
    // Every request read the token live before any of them committed.
    const snaps = await Promise.all([store, other].map((s) => s.sessions.readForRefresh(r.hash)));
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => {
      const [retired, next] = successor(r, `x${i}`);
      return (i % 2 ? store : other).sessions.rotate(snaps[i % 2]!, retired, next);
    }));
    assert.equal(outcomes.filter((o) => o === "rotated").length, 1);
    const stored = (await store.sessions.getRefresh(r.hash))!;
    assert.ok(stored.successor);
    assert.ok(await store.sessions.getRefresh(stored.successor.hash));
  },
);

conformance(
  "rotate with a DPoP proof's mark: one commit writes both; the same mark again commits nothing",
  async ({ store, another }) => {
    const other = await another();
    await store.users.create(user(1));
    const [, r1] = await storedSession(store, 1);
    const [, r2] = await storedSession(store, 2);
    const mark = { id: "proof-1", expiresAt: NOW + 60_000 };
    const s1 = (await store.sessions.readForRefresh(r1.hash))!;
    assert.equal(await store.sessions.rotate(s1, ...successor(r1, "a"), mark), "rotated");
    // The mark is there, for a proof spent on its own as for a rotation on another instance.
    assert.equal(await other.dpop.markProofUsed(mark.id, NOW + 60_000), false);
    const s2 = (await other.sessions.readForRefresh(r2.hash))!;
    assert.equal(await other.sessions.rotate(s2, ...successor(r2, "a"), mark), "replayed");
    // Nothing of the refused rotation was written.
    const after = (await store.sessions.readForRefresh(r2.hash))!;
    assert.equal(after.record.retired_at, undefined);
    assert.equal(await store.sessions.getRefresh(`${r2.hash}-a`), undefined);
  },
);

conformance(
  "rotate with a DPoP proof's mark: a rotation that fails its checks leaves no mark",
  async ({ store, another }) => {
    const other = await another();
    await store.users.create(user(1));
    const [f, r] = await storedSession(store, 1);
    const snap = (await store.sessions.readForRefresh(r.hash))!;
    await other.sessions.revokeFamily(f.id, NOW);
    const mark = { id: "proof-2", expiresAt: NOW + 60_000 };
    assert.equal(await store.sessions.rotate(snap, ...successor(r, "a"), mark), "changed");
    assert.equal(await other.dpop.markProofUsed(mark.id, NOW + 60_000), true);
  },
);

conformance(
  "rotate with a DPoP proof's mark: an expired mark is taken over",
  async ({ store }, clock) => {
    await store.users.create(user(1));
    const [, r] = await storedSession(store, 1);
    assert.equal(await store.dpop.markProofUsed("proof-3", NOW + 1_000), true);
    clock.set(NOW + 2_000);
    const mark = { id: "proof-3", expiresAt: NOW + 62_000 };
    // The first attempt may only clear the stale mark (the caller then reads and tries again).
    let outcome = await store.sessions.rotate(
      (await store.sessions.readForRefresh(r.hash))!,
      ...successor(r, "a", NOW + 2_000),
      mark,
    );
    if (outcome !== "rotated") {
      assert.notEqual(outcome, "replayed");
      outcome = await store.sessions.rotate(
        (await store.sessions.readForRefresh(r.hash))!,
        ...successor(r, "a", NOW + 2_000),
        mark,
      );
    }
    assert.equal(outcome, "rotated");
    assert.equal(await store.dpop.markProofUsed("proof-3", NOW + 62_000), false);
  },
);

conformance(
  "rotate with a DPoP proof's mark: 20 concurrent uses of one proof on two instances, one wins",
  async ({ store, another }) => {
    const other = await another();
    await store.users.create(user(1));
    // Twenty sessions bound to one key: one proof presented with each of their tokens.
    const sessions = Array.from({ length: 20 }, (_, i) => session(10 + i, user(1).id));
    for (const [f, r] of sessions) await store.sessions.create(f, r);
    const mark = { id: "proof-4", expiresAt: NOW + 60_000 };
    const snaps = await Promise.all(
      sessions.map(([, r], i) => (i % 2 ? store : other).sessions.readForRefresh(r.hash)),
    );
    const outcomes = await Promise.all(
      sessions.map(([, r], i) =>
        (i % 2 ? store : other).sessions.rotate(snaps[i]!, ...successor(r, "a"), mark)
      ),
    );
    assert.equal(outcomes.filter((o) => o === "rotated").length, 1, outcomes.join(" "));
    assert.deepEqual(new Set(outcomes), new Set(["rotated", "replayed"]));
    const retired = await Promise.all(sessions.map(([, r]) => store.sessions.getRefresh(r.hash)));
    assert.equal(retired.filter((r) => r?.retired_at !== undefined).length, 1);
  },
);

conformance(
  "rotate: fails once the family was revoked or the user changed since the read",
  async ({ store, another }) => {
    const other = await another();
    await store.users.create(user(1));
    const [f1, r1] = await storedSession(store, 1);
    const [, r2] = await storedSession(store, 2);
    const s1 = (await store.sessions.readForRefresh(r1.hash))!;
    const s2 = (await store.sessions.readForRefresh(r2.hash))!;
    await other.sessions.revokeFamily(f1.id, NOW);
    assert.equal(await store.sessions.rotate(s1, ...successor(r1, "a")), "changed");
    await other.users.update(user(1).id, (u) => ({ ...u, status: "suspended" }));
    assert.equal(await store.sessions.rotate(s2, ...successor(r2, "a")), "changed");
    const again = (await store.sessions.readForRefresh(r2.hash))!;
    assert.equal(again.user?.status, "suspended");
    assert.equal(again.record.retired_at, undefined);
  },
);

conformance(
  "housekeeping.sweepExpired: deletes ended families and records (bounded), leaves live ones, keeps counts exact",
  async ({ store }, clock) => {
    await store.users.create(user(1));
    for (let i = 0; i < 5; i++) await store.sessions.create(...session(i, user(1).id, HOUR));
    await store.sessions.create(...session(9, user(1).id, 10 * HOUR));
    await store.sessions.revokeFamily("ses_0", NOW);
    assert.equal((await store.stats.read()).sessions, 5);
    clock.advance(2 * HOUR);
    assert.equal(await store.sessions.getFamily("ses_1"), undefined);
    assert.equal(await store.sessions.revokeFamily("ses_1", clock.now()), false);
    assert.equal(await store.housekeeping.sweepExpired(clock.now(), 3), 3);
    assert.equal(await store.housekeeping.sweepExpired(clock.now(), 3), 2);
    assert.equal(await store.housekeeping.sweepExpired(clock.now(), 3), 0);
    assert.equal((await store.stats.read()).sessions, 1);
    assert.deepEqual(await store.sessions.familiesOfUser(user(1).id), ["ses_9"]);
    assert.equal(await store.sessions.getRefresh("hash-1"), undefined);
    assert.ok(await store.sessions.getRefresh("hash-9"));
  },
);

conformance(
  "nonces: a nonce is redeemed once, an ID token once, an expired nonce never",
  async ({ store }, clock) => {
    const { nonces } = store;
    await nonces.put({ hash: "n1", created_at: NOW, expires_at: NOW + 60_000 });
    await nonces.put({ hash: "n2", created_at: NOW, expires_at: NOW + 60_000 });
    const mark = (id: string) => ({ issuer: "https://idp", id, expires_at: NOW + 120_000 });
    assert.equal(await nonces.redeem(["nx", "n1"], mark("jti:a")), "redeemed");
    assert.equal(await nonces.redeem(["n1"], mark("jti:b")), "nonce_unknown");
    // The ID token is spent: refused, and the other nonce stays unconsumed.
    assert.equal(await nonces.redeem(["n2"], mark("jti:a")), "assertion_used");
    assert.equal(await nonces.redeem(["n2"], mark("jti:c")), "redeemed");
    await nonces.put({ hash: "n3", created_at: NOW, expires_at: NOW + 60_000 });
    clock.advance(60_000);
    assert.equal(await nonces.redeem(["n3"], mark("jti:d")), "nonce_expired");
    assert.equal(await nonces.redeem(["n3"], mark("jti:d")), "nonce_unknown");
  },
);

conformance(
  "nonces: 20 concurrent redemptions of one nonce on two instances, exactly one succeeds",
  async ({ store, another }) => {
    const other = await another();
    await store.nonces.put({ hash: "n", created_at: NOW, expires_at: NOW + 60_000 });
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? store : other).nonces.redeem(["n"], {
          issuer: "https://idp",
          id: `jti:${i}`,
          expires_at: NOW + 120_000,
        })),
    );
    assert.equal(
      outcomes.filter((o) => o === "redeemed").length,
      1,
    );
    assert.equal(outcomes.filter((o) => o === "nonce_unknown").length, 19);
  },
);

conformance(
  "lockouts: 50 concurrent attempts on two instances take exactly `threshold`",
  async ({ store, another }) => {
    const other = await another();
    const policy = { threshold: 3, windowMs: 60_000 };
    const granted = await Promise.all(Array.from({ length: 50 }, async (_, i) => {
      let ok = false;
      await (i % 2 ? store : other).lockouts.update("192.0.2.1", (s) => {
        const t = takeAttempt(s, NOW, policy);
        ok = t.granted;
        return t.state;
      }, (s: LockoutState) => s.window_start + policy.windowMs);
      return ok;
    }));
    assert.equal(granted.filter(Boolean).length, 3);
    assert.equal((await store.lockouts.get("192.0.2.1"))?.attempts, 3);
    assert.equal(await store.lockouts.get("192.0.2.2"), undefined);
  },
);

conformance(
  "key ring: saved only against the version loaded; unknown key fields pass through",
  async ({ store, another }) => {
    const { keyring } = store;
    assert.deepEqual(await keyring.load(), { ring: undefined, version: null });
    const key = { kid: "k1", x: "xx", source: "store" as const, created_at: NOW, sealed_by: "v9" };
    const ring = { active_kid: "k1", keys: [key] };
    assert.equal(await keyring.save(ring, null), true);
    assert.equal(await keyring.save(ring, null), false);
    const loaded = await (await another()).keyring.load();
    assert.deepEqual(loaded.ring, ring);
    const ring2 = { active_kid: "k2", keys: [{ ...key, kid: "k2" }, key] };
    assert.equal(await keyring.save(ring2, loaded.version), true);
    assert.equal(await keyring.save(ring, loaded.version), false);
    assert.deepEqual((await keyring.load()).ring, ring2);
  },
);

conformance(
  "rate limits: counts added by two instances at once sum up per key and window",
  async ({ store, another }) => {
    const other = await another();
    const window = 28_333_333;
    const forgetAt = (window + 1) * 60_000;
    const adds = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? store : other).rateLimits.add(
          window,
          new Map([["192.0.2.1", 2], [`198.51.100.${i}`, 1]]),
          forgetAt,
        )),
    );
    assert.equal(
      Math.max(...adds.map((t) => t.get("192.0.2.1")!)),
      20,
    );
    const totals = await store.rateLimits.add(window, new Map([["192.0.2.1", 1]]), forgetAt);
    assert.deepEqual([...totals], [["192.0.2.1", 21]]);
    const next = await other.rateLimits.add(window + 1, new Map([["192.0.2.1", 1]]), forgetAt);
    assert.equal(next.get("192.0.2.1"), 1);
    // More keys than one KV read takes (getMany: 10 keys): every one counted, in full.
    const wide = new Map(Array.from({ length: 25 }, (_, i) => [`203.0.113.${i}`, i + 1]));
    await store.rateLimits.add(window, wide, forgetAt);
    const again = await other.rateLimits.add(window, wide, forgetAt);
    assert.deepEqual(again, new Map([...wide].map(([k, n]) => [k, 2 * n])));
  },
);

/**
 * Text at the edge of the storable-text rule: every sample the rule accepts round-trips exactly
 * through every store (fields, metadata and claims keys and values, the list cursor); the rule
 * refuses the rest before any store sees it. A rule that let NUL or an unpaired surrogate
 * through would fail here on PostgreSQL (an error, or U+FFFD in place of the surrogate).
 */
conformance(
  "every text the storable-text rule accepts round-trips exactly",
  async ({ store }) => {
    const samples = [
      "\u0001\u001f\u007f tab\tnewline\n",
      '\\u0000 as six characters, "quotes" and \\backslashes\\',
      "\ufffd\ufffe\uffff and 🚀 (a surrogate pair)",
      "\u00e9\u00ff Latin-1",
      "nul\u0000",
      "lone high \ud800",
      "lone low \udfff",
      "reversed pair \udc00\ud800",
    ];
    let n = 0;
    for (const text of samples) {
      if (!isStorableText(text)) {
        assert.ok(/nul|lone|reversed/.test(text), `the rule refuses ${JSON.stringify(text)}`);
        continue;
      }
      const u = user(++n, {
        provider: text.slice(0, 64),
        external_id: text,
        display_name: text,
        metadata: { [text]: text, nested: [{ [text]: [text] }] },
        claims: { [text]: text },
      });
      assert.deepEqual(await store.users.create(u), { ok: true });
      assert.deepEqual(await store.users.get(u.id), u, JSON.stringify(text));
      assert.deepEqual(await store.users.findByExternalId(u.provider, text), u);
    }
    assert.ok(n >= 4, "the rule accepts the ordinary samples");
    // A cursor is an id: any storable text orders without an error.
    for (const text of samples.filter(isStorableText)) {
      assert.ok(Array.isArray(await store.users.list(text, 10)));
    }
  },
);

conformance(
  "dpop: 20 concurrent marks of one proof on two instances: exactly one wins, until it expires",
  async ({ store, another }, clock) => {
    const other = await another();
    const won = await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) => (i % 2 ? store : other).dpop.markProofUsed("p1", NOW + 60_000),
      ),
    );
    assert.equal(won.filter(Boolean).length, 1);
    assert.equal(await other.dpop.markProofUsed("p2", NOW + 60_000), true);
    clock.set(NOW + 60_000);
    // An expired mark (not yet reclaimed) no longer blocks: a proof that old fails its iat check.
    assert.equal(await store.dpop.markProofUsed("p1", NOW + 120_000), true);
    assert.equal(await other.dpop.markProofUsed("p1", NOW + 120_000), false);
  },
);

conformance(
  "dpop: every instance gets the first nonce secret stored",
  async ({ store, another }) => {
    const other = await another();
    const got = await Promise.all(
      ["a", "b", "c", "d"].map((c, i) => (i % 2 ? store : other).dpop.nonceSecret(c)),
    );
    assert.equal(new Set(got).size, 1);
    assert.equal(await store.dpop.nonceSecret("z"), got[0]);
  },
);

function message(n: number, endpoint = "whe_a", over: Partial<OutboxMessage> = {}): OutboxMessage {
  return {
    id: `msg_${String(n).padStart(26, "0")}`,
    endpoint,
    type: "user.created",
    created_at: NOW,
    data: { n },
    ...over,
  };
}

const ids = (ms: readonly OutboxMessage[]) => ms.map((m) => m.id);
const failed = (at: number, error: string): DeliveryAttempt => ({ at, error, duration_ms: 3 });
const delivered = (at: number): DeliveryAttempt => ({ at, status: 204, duration_ms: 2 });
const kept = { state: "delivered", keep_until: NOW + HOUR } as const;

conformance(
  "outbox: messages commit with the user they report, and not with a refused create",
  async ({ store }) => {
    assert.deepEqual(await store.users.create(user(1), [message(1), message(1, "whe_b")]), {
      ok: true,
    });
    assert.deepEqual(await store.users.create(user(1), [message(2)]), {
      ok: false,
      reason: "conflict",
    });
    assert.deepEqual(ids(await store.outbox.pending("whe_a", 10)), [message(1).id]);
    assert.deepEqual(ids(await store.outbox.pending("whe_b", 10)), [message(1).id]);
    const [pending] = await store.outbox.pending("whe_a", 10);
    assert.equal(pending!.attempts, 0);
    assert.equal(pending!.next_attempt_at, NOW);
    assert.deepEqual(pending!.data, { n: 1 });
  },
);

conformance(
  "outbox: an update, a revocation and a lockout commit the messages built from what changed",
  async ({ store }) => {
    await store.users.create(user(1));
    await store.users.update(
      user(1).id,
      (u) => ({ ...u, status: "suspended" }),
      (before, after) => [message(1, "whe_a", { data: { from: before.status, to: after.status } })],
    );
    const [f1] = await storedSession(store, 1);
    const [f2] = await storedSession(store, 2);
    let n = 10;
    const revoked = (f: SessionFamily) => [message(n++, "whe_a", { data: { session: f.id } })];
    assert.equal(await store.sessions.revokeFamily(f1.id, NOW, revoked), true);
    // Not revoked again: no message either.
    assert.equal(await store.sessions.revokeFamily(f1.id, NOW, revoked), false);
    assert.equal(await store.sessions.revokeAllOfUser(user(1).id, NOW, revoked), 1);
    await store.lockouts.update(
      "10.0.0.1",
      () => ({ failures: 5, window_start: NOW, locked_until: NOW + HOUR }),
      () => NOW + HOUR,
      (before, next) => [message(20, "whe_a", { data: { was: before ?? null, ...next } })],
    );
    const got = await store.outbox.pending("whe_a", 10);
    assert.deepEqual(got.map((m) => m.data), [
      { from: "active", to: "suspended" },
      { session: f1.id },
      { session: f2.id },
      { was: null, failures: 5, window_start: NOW, locked_until: NOW + HOUR },
    ]);
  },
);

conformance(
  "outbox: a claim takes the due head of one endpoint's queue, and nothing behind it",
  async ({ store, another }) => {
    await store.users.create(user(1), [message(1), message(3)]);
    await store.users.create(user(2), [message(2), message(4, "whe_b")]);
    const other = await another();
    const first = await store.outbox.claim("whe_a", "i1", NOW, NOW + 30_000);
    assert.equal(first?.id, message(1).id);
    assert.equal(first?.lease_owner, "i1");
    // The head is claimed: another instance neither takes it nor skips ahead.
    assert.equal(await other.outbox.claim("whe_a", "i2", NOW, NOW + 30_000), undefined);
    assert.equal((await other.outbox.claim("whe_b", "i2", NOW, NOW + 30_000))?.id, message(4).id);
    // A failed attempt releases it with a later time: the queue waits for it.
    assert.equal(
      await store.outbox.settle(first!, failed(NOW, "503"), { retry_at: NOW + 5_000 }),
      true,
    );
    assert.equal(await other.outbox.claim("whe_a", "i2", NOW + 4_999, NOW + 30_000), undefined);
    const again = await other.outbox.claim("whe_a", "i2", NOW + 5_000, NOW + 35_000);
    assert.equal(again?.id, message(1).id);
    assert.equal(again?.attempts, 1);
    assert.equal(again?.last_error, "503");
    // The first claim was lost to the second: its owner can no longer settle it.
    assert.equal(await store.outbox.settle(first!, delivered(NOW), kept), false);
    assert.equal(await other.outbox.settle(again!, delivered(NOW + 5_000), kept), true);
    assert.deepEqual(ids(await store.outbox.pending("whe_a", 10)), [message(2).id, message(3).id]);
  },
);

conformance(
  "outbox: a lease past its end may be claimed again (the instance holding it died)",
  async ({ store, another }) => {
    await store.users.create(user(1), [message(1)]);
    const other = await another();
    await store.outbox.claim("whe_a", "i1", NOW, NOW + 30_000);
    assert.equal(await other.outbox.claim("whe_a", "i2", NOW + 29_999, NOW + 60_000), undefined);
    assert.equal(
      (await other.outbox.claim("whe_a", "i2", NOW + 30_000, NOW + 60_000))?.lease_owner,
      "i2",
    );
  },
);

conformance(
  "outbox: concurrent claims of one head on two instances give it to exactly one",
  async ({ store, another }) => {
    await store.users.create(user(1), [message(1)]);
    const other = await another();
    const got = await Promise.all(
      Array.from(
        { length: 8 },
        (_, i) => (i % 2 ? store : other).outbox.claim("whe_a", `i${i}`, NOW, NOW + 30_000),
      ),
    );
    assert.equal(got.filter((g) => g !== undefined).length, 1);
  },
);

const operator = { type: "operator", id: "alice" } as const;

conformance(
  "audit: records commit with the change they report, and not with a refused create",
  async ({ store }, clock) => {
    const trail = new AuditTrail(3600, clock, cryptoRandom);
    const created = trail.record(operator, "user.create", user(1).id, {});
    assert.deepEqual(await store.users.create(user(1), [created, message(1)]), { ok: true });
    const refused = trail.record(operator, "user.create", user(1).id, { again: true });
    assert.equal((await store.users.create(user(1), [refused])).ok, false);
    const [f1] = await storedSession(store, 1);
    await store.sessions.revokeFamily(
      f1.id,
      NOW,
      (f) => [trail.record(operator, "session.revoke", f.user_id, { session: f.id })],
    );
    await store.lockouts.update(
      "10.0.0.9",
      () => ({ failures: 5, window_start: NOW, locked_until: NOW + HOUR }),
      () => NOW + HOUR,
      () => [trail.record({ type: "peer", id: "10.0.0.9" }, "operator.lockout", undefined, {})],
    );
    const got = await store.audit.list({}, 10);
    assert.deepEqual(got.map((r) => r.action), [
      "operator.lockout",
      "session.revoke",
      "user.create",
    ]);
    assert.deepEqual(got[2], created);
    assert.deepEqual(got[1]!.details, { session: f1.id });
  },
);

conformance(
  "audit: pages newest first, filtered by actor, action, user and time range",
  async ({ store }, clock) => {
    const trail = new AuditTrail(3600, clock, cryptoRandom);
    const written = [];
    for (let i = 0; i < 6; i++) {
      const actor = i % 2 ? operator : { type: "user", id: user(i).id } as const;
      written.push(trail.record(actor, i < 3 ? "user.update" : "session.revoked", user(i % 3).id, {
        i,
      }));
      clock.advance(1000);
    }
    await store.audit.append(written.slice(0, 3));
    await store.audit.append(written.slice(3));
    const i = (rs: readonly AuditRecord[]) => rs.map((r) => r.details.i);
    assert.deepEqual(i(await store.audit.list({}, 4)), [5, 4, 3, 2]);
    assert.deepEqual(i(await store.audit.list({ before: written[2]!.id }, 4)), [1, 0]);
    assert.deepEqual(i(await store.audit.list({ actor: "alice" }, 10)), [5, 3, 1]);
    assert.deepEqual(i(await store.audit.list({ action: "user.update" }, 10)), [2, 1, 0]);
    assert.deepEqual(i(await store.audit.list({ user: user(1).id }, 10)), [4, 1]);
    assert.deepEqual(i(await store.audit.list({ from: NOW + 2000, to: NOW + 4000 }, 10)), [3, 2]);
    assert.deepEqual(i(await store.audit.list({ from: NOW + 4500 }, 10)), [5]);
    assert.deepEqual(i(await store.audit.list({ to: NOW + 1000 }, 10)), [0]);
    assert.deepEqual(
      i(await store.audit.list({ actor: "alice", action: "session.revoked", user: user(2).id }, 9)),
      [5],
    );
    assert.deepEqual(i(await store.audit.list({ actor: "alice", before: written[3]!.id }, 9)), [1]);
  },
);

conformance(
  "audit: the sweep deletes records past their retention and keeps the rest",
  async ({ store }, clock) => {
    const short = new AuditTrail(60, clock, cryptoRandom);
    await store.audit.append([short.record(operator, "a", "usr_x", {})]);
    clock.advance(1000);
    await store.audit.append([short.record(operator, "b", "usr_x", {})]);
    await store.housekeeping.sweepExpired(NOW + 60_000);
    assert.deepEqual((await store.audit.list({}, 10)).map((r) => r.action), ["b"]);
    assert.deepEqual((await store.audit.list({ user: "usr_x" }, 10)).map((r) => r.action), ["b"]);
    assert.deepEqual((await store.audit.list({ actor: "alice" }, 10)).map((r) => r.action), ["b"]);
    await store.housekeeping.sweepExpired(NOW + 61_000);
    assert.deepEqual(await store.audit.list({ action: "b" }, 10), []);
  },
);

conformance(
  "deliveries: each message has a record with its attempts, kept once delivered or failed",
  async ({ store }) => {
    await store.users.create(user(1), [message(1), message(1, "whe_b")]);
    await store.users.create(user(2), [message(2, "whe_a", { type: "user.deleted" })]);
    const pending = await store.outbox.deliveries({}, 10);
    assert.deepEqual(pending.map((d) => [d.id, d.endpoint, d.state]), [
      [message(2).id, "whe_a", "pending"],
      [message(1).id, "whe_b", "pending"],
      [message(1).id, "whe_a", "pending"],
    ]);
    assert.deepEqual(pending[2]!.attempts, []);
    assert.deepEqual(pending[2]!.data, { n: 1 });
    const c1 = await store.outbox.claim("whe_a", "i1", NOW, NOW + 30_000);
    await store.outbox.settle(c1!, failed(NOW, "HTTP 503"), { retry_at: NOW + 5_000 });
    const c2 = await store.outbox.claim("whe_a", "i1", NOW + 5_000, NOW + 35_000);
    await store.outbox.settle(c2!, delivered(NOW + 5_000), kept);
    const c3 = await store.outbox.claim("whe_b", "i1", NOW, NOW + 30_000);
    await store.outbox.settle(c3!, failed(NOW, "connection failed"), {
      state: "failed",
      keep_until: NOW + HOUR,
    });
    const [d1] = await store.outbox.deliveries({ endpoint: "whe_a", type: "user.created" }, 10);
    assert.equal(d1?.state, "delivered");
    assert.equal(d1?.expires_at, NOW + HOUR);
    assert.deepEqual(d1?.attempts, [failed(NOW, "HTTP 503"), delivered(NOW + 5_000)]);
    assert.deepEqual(
      (await store.outbox.deliveries({ state: "failed" }, 10)).map((d) => d.endpoint),
      ["whe_b"],
    );
    assert.deepEqual(
      (await store.outbox.deliveries({ state: "pending" }, 10)).map((d) => d.type),
      ["user.deleted"],
    );
    // Pages continue after the last one shown, across endpoints of one message.
    const first = await store.outbox.deliveries({}, 2);
    const last = first[first.length - 1]!;
    const rest = await store.outbox.deliveries({ before: [last.id, last.endpoint] }, 2);
    assert.deepEqual(rest.map((d) => [d.id, d.endpoint]), [[message(1).id, "whe_a"]]);
  },
);

conformance(
  "deliveries: a redelivery queues a settled message once, with its audit record",
  async ({ store }, clock) => {
    const trail = new AuditTrail(3600, clock, cryptoRandom);
    await store.users.create(user(1), [message(1), message(2)]);
    const c1 = await store.outbox.claim("whe_a", "i1", NOW, NOW + 30_000);
    await store.outbox.settle(c1!, delivered(NOW), kept);
    assert.equal(await store.outbox.redeliver("whe_a", message(9).id, NOW), undefined);
    assert.equal(await store.outbox.redeliver("whe_b", message(1).id, NOW), undefined);
    const still = await store.outbox.redeliver("whe_a", message(2).id, NOW, [
      trail.record(operator, "webhook.redeliver", undefined, { n: 2 }),
    ]);
    assert.equal(still?.requeued, false, "a pending message is left as it is");
    const again = await store.outbox.redeliver("whe_a", message(1).id, NOW + 10, [
      trail.record(operator, "webhook.redeliver", undefined, { n: 1 }),
    ]);
    assert.equal(again?.requeued, true);
    assert.equal(again?.record.state, "pending");
    assert.deepEqual(again?.record.attempts, [delivered(NOW)]);
    const twice = await store.outbox.redeliver("whe_a", message(1).id, NOW + 20, [
      trail.record(operator, "webhook.redeliver", undefined, { n: 3 }),
    ]);
    assert.equal(twice?.requeued, false, "asking twice queues it once");
    assert.deepEqual(
      (await store.audit.list({ action: "webhook.redeliver" }, 10)).map((r) => r.details.n),
      [1],
    );
    // Queued again at the head (creation order), due now, with a new retry window.
    const head = await store.outbox.claim("whe_a", "i2", NOW + 10, NOW + 30_000);
    assert.equal(head?.id, message(1).id);
    assert.equal(head?.attempts, 0);
    assert.equal(head?.queued_at, NOW + 10);
    await store.outbox.settle(head!, delivered(NOW + 10), kept);
    const [record] = await store.outbox.deliveries({ state: "delivered" }, 1);
    assert.deepEqual(record?.attempts, [delivered(NOW), delivered(NOW + 10)]);
  },
);

conformance(
  "deliveries: the sweep deletes settled records past their retention, never pending ones",
  async ({ store }) => {
    await store.users.create(user(1), [message(1), message(2), message(3, "whe_b")]);
    const c1 = await store.outbox.claim("whe_a", "i1", NOW, NOW + 30_000);
    await store.outbox.settle(c1!, delivered(NOW), { state: "delivered", keep_until: NOW + 10 });
    const c2 = await store.outbox.claim("whe_a", "i1", NOW, NOW + 30_000);
    await store.outbox.settle(c2!, delivered(NOW), { state: "delivered", keep_until: NOW + HOUR });
    const left = async () => (await store.outbox.deliveries({}, 10)).map((d) => [d.id, d.state]);
    await store.housekeeping.sweepExpired(NOW + 20);
    assert.deepEqual(await left(), [[message(3).id, "pending"], [message(2).id, "delivered"]]);
    await store.housekeeping.sweepExpired(NOW + 400 * 24 * HOUR);
    assert.deepEqual(await left(), [[message(3).id, "pending"]]);
  },
);

conformance(
  "webhook health: failures on two instances add up; a success ends the run for everyone",
  async ({ store, another }) => {
    const other = await another();
    assert.deepEqual(await store.webhookHealth.record("whe_a", true), { before: 0, after: 0 });
    const runs = await Promise.all(
      Array.from(
        { length: 6 },
        (_, i) => (i % 2 ? store : other).webhookHealth.record("whe_a", false),
      ),
    );
    assert.deepEqual(runs.map((r) => r.after).sort(), [1, 2, 3, 4, 5, 6], "no count lost");
    await store.webhookHealth.record("whe_b", false);
    assert.deepEqual(await other.webhookHealth.read(), new Map([["whe_a", 6], ["whe_b", 1]]));
    assert.deepEqual(await other.webhookHealth.record("whe_a", true), { before: 6, after: 0 });
    assert.deepEqual(await store.webhookHealth.read(), new Map([["whe_b", 1]]));
  },
);

conformance(
  "provider tokens: a kept token moves to the queue once; the newest sign-in's token wins",
  async ({ store }) => {
    const t = store.providerTokens;
    assert.equal(await t.queue("usr_none", NOW), false, "nothing kept: nothing queued");
    await t.keep({ user_id: "usr_a", provider: "apple", sealed: "s1" });
    await t.keep({ user_id: "usr_a", provider: "apple", sealed: "s2" });
    assert.equal(await t.pending(), 0);
    assert.equal(await t.queue("usr_a", NOW), true);
    assert.equal(await t.queue("usr_a", NOW), false, "the token left with the first queueing");
    assert.equal(await t.pending(), 1);
    const [job] = await t.lease(NOW, NOW + 60_000, 10);
    assert.deepEqual(job, {
      user_id: "usr_a",
      provider: "apple",
      sealed: "s2",
      attempts: 0,
      next_at: NOW,
      leased_until: NOW + 60_000,
    });
    await t.done("usr_a");
    assert.equal(await t.pending(), 0);
    assert.deepEqual(await t.lease(NOW + HOUR, NOW + 2 * HOUR, 10), []);
  },
);

conformance(
  "provider tokens: a failed job waits for its backoff; a lease hides it until it ends",
  async ({ store }) => {
    const t = store.providerTokens;
    await t.keep({ user_id: "usr_b", provider: "apple", sealed: "s" });
    await t.queue("usr_b", NOW);
    assert.equal((await t.lease(NOW, NOW + 60_000, 10)).length, 1);
    assert.deepEqual(await t.lease(NOW + 1, NOW + 60_000, 10), [], "leased: not due again");
    await t.retry("usr_b", NOW + 30_000, "HTTP 503");
    assert.deepEqual(await t.lease(NOW + 29_999, NOW + 90_000, 10), [], "backing off");
    const [job] = await t.lease(NOW + 30_000, NOW + 90_000, 10);
    assert.equal(job?.attempts, 1);
    assert.equal(job?.last_error, "HTTP 503");
    // A lease that ended (its instance died mid-attempt) frees the job for another.
    const [again] = await t.lease(NOW + 90_000, NOW + 150_000, 10);
    assert.equal(again?.user_id, "usr_b");
    assert.equal(await t.pending(), 1);
  },
);

conformance(
  "provider tokens: two instances leasing at once never get the same job",
  async ({ store, another }) => {
    const other = await another();
    for (let i = 0; i < 6; i++) {
      await store.providerTokens.keep({ user_id: `usr_${i}`, provider: "apple", sealed: "s" });
      await store.providerTokens.queue(`usr_${i}`, NOW);
    }
    const got = await Promise.all(
      Array.from(
        { length: 8 },
        (_, i) => (i % 2 ? store : other).providerTokens.lease(NOW, NOW + 60_000, 2),
      ),
    );
    const ids = got.flat().map((j) => j.user_id);
    assert.equal(ids.length, 6, `every job leased once: ${ids}`);
    assert.equal(new Set(ids).size, 6);
  },
);

conformance("ping answers while the store is reachable", async ({ store }) => {
  await store.ping();
});

// Last: registered after every case, so it runs after them.
Deno.test({
  name: "store conformance: stop the PostgreSQL server of this file",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await pg?.close();
    pg = undefined;
  },
});
