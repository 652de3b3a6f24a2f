import assert from "node:assert/strict";
import { createMemoryLogger, FixedClock, silentLogger } from "@org/shared";
import { createKvStore } from "../store/kv_store.ts";
import { exportPkcs8Pem, generateEd25519, thumbprint } from "./ed25519.ts";
import {
  type KeyManagerOptions,
  loadKeyManager,
  resealKeyRing,
  rotateStoreKey,
} from "./key_manager.ts";
import { createKeySealer } from "./key_seal.ts";

async function withKv(fn: (o: KeyManagerOptions, clock: FixedClock) => Promise<void>) {
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = new FixedClock(Date.parse("2026-01-01T00:00:00Z"));
    await fn({
      store: createKvStore(kv, clock).keyring,
      source: { kind: "store" },
      clock,
      retireAfterMs: 960_000,
      log: silentLogger,
    }, clock);
  } finally {
    kv.close();
  }
}

Deno.test("loadKeyManager() generates a store key once and reuses it on restart", () =>
  withKv(async (o) => {
    const a = await loadKeyManager(o);
    const b = await loadKeyManager(o);
    assert.equal(a.activeKid, b.activeKid);
    assert.equal(b.jwks().keys.length, 1);
  }));

Deno.test("rotateStoreKey() keeps the old key published until its tokens expire", () =>
  withKv(async (o, clock) => {
    const before = await loadKeyManager(o);
    const token = before.sign({ iss: "i", iat: 0, exp: 2e9 });
    const { kid, previous } = await rotateStoreKey(o);
    assert.equal(previous, before.activeKid);
    const after = await loadKeyManager(o);
    assert.equal(after.activeKid, kid);
    assert.deepEqual(after.jwks().keys.map((k) => k.kid), [kid, previous]);
    await after.verify(token, { typ: "JWT", issuer: "i", currentDate: new Date(clock.now()) });
    clock.advance(960_001);
    const later = await loadKeyManager(o);
    assert.deepEqual(later.jwks().keys.map((k) => k.kid), [kid]);
  }));

Deno.test("loadKeyManager() signs with a PEM file key, kid from config or thumbprint", () =>
  withKv(async (o) => {
    const key = generateEd25519();
    const pem = exportPkcs8Pem(key);
    const m = await loadKeyManager({ ...o, source: { kind: "file", pem, kid: undefined } });
    assert.equal(m.activeKid, thumbprint(key.x));
    const named = await loadKeyManager({ ...o, source: { kind: "file", pem, kid: "k1" } });
    assert.equal(named.activeKid, "k1");
    // Swapping the file key keeps the previous one published.
    assert.deepEqual(named.jwks().keys.map((k) => k.kid), ["k1", thumbprint(key.x)]);
  }));

Deno.test("loadKeyManager() rejects a non-Ed25519 PEM", () =>
  withKv(async (o) => {
    const { privateKey } = await crypto.subtle.generateKey(
      { name: "ECDSA", namedCurve: "P-256" },
      true,
      ["sign"],
    );
    const der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", privateKey));
    const pem = `-----BEGIN PRIVATE KEY-----\n${
      btoa(String.fromCharCode(...der))
    }\n-----END PRIVATE KEY-----\n`;
    await assert.rejects(
      loadKeyManager({ ...o, source: { kind: "file", pem, kid: undefined } }),
      /expected an Ed25519 key/,
    );
  }));

Deno.test("loadKeyManager() refuses a PEM whose key differs from the stored key with the same kid", () =>
  withKv(async (o) => {
    const first = generateEd25519();
    const a = await loadKeyManager({
      ...o,
      source: { kind: "file", pem: exportPkcs8Pem(first), kid: "k1" },
    });
    const token = a.sign({ iss: "i", iat: 0, exp: 2e9 });
    const second = exportPkcs8Pem(generateEd25519());
    await assert.rejects(
      loadKeyManager({ ...o, source: { kind: "file", pem: second, kid: "k1" } }),
      (e: unknown) => {
        assert.ok(e instanceof Error);
        assert.match(e.message, /different key than the one already published as kid "k1"/);
        assert.match(e.message, /new keys\.kid/);
        assert.doesNotMatch(e.message, /\n/);
        return true;
      },
    );
    // Nothing was replaced: the stored key still verifies the tokens it signed.
    const again = await loadKeyManager({
      ...o,
      source: { kind: "file", pem: exportPkcs8Pem(first), kid: "k1" },
    });
    await again.verify(token, { typ: "JWT", issuer: "i", currentDate: new Date(o.clock.now()) });
    // A new kid for the new key is a rotation.
    const rotated = await loadKeyManager({
      ...o,
      source: { kind: "file", pem: second, kid: "k2" },
    });
    assert.deepEqual(rotated.jwks().keys.map((k) => k.kid), ["k2", "k1"]);
  }));

Deno.test("KeyManager.jwks() drops a retired key once its retire_at passes, without a reload", () =>
  withKv(async (o, clock) => {
    await loadKeyManager(o);
    const { kid, previous } = await rotateStoreKey(o);
    const m = await loadKeyManager(o);
    const old = m.jwks();
    assert.deepEqual(old.keys.map((k) => k.kid), [kid, previous]);
    clock.advance(960_000 - 1);
    assert.deepEqual(m.jwks().keys.map((k) => k.kid), [kid, previous]);
    clock.advance(1);
    assert.deepEqual(m.jwks().keys.map((k) => k.kid), [kid]);
  }));

const SECRET_A = "secret-a-secret-a-secret-a-secret-a-0123";
const SECRET_B = "secret-b-secret-b-secret-b-secret-b-0123";

/** Every private key of the stored ring, as stored. */
async function storedPrivates(o: KeyManagerOptions): Promise<string[]> {
  const { ring } = await o.store.load();
  return (ring?.keys ?? []).flatMap((k) => (k.pkcs8 === undefined ? [] : [k.pkcs8]));
}

Deno.test("with keys.encryption_key the store holds only sealed keys, and a restart signs on", () =>
  withKv(async (o, clock) => {
    const sealed = { ...o, sealer: createKeySealer(SECRET_A) };
    const first = await loadKeyManager(sealed);
    const token = first.sign({ iss: "i", iat: 0, exp: 2e9 });
    await rotateStoreKey(sealed);
    const stored = await storedPrivates(o);
    assert.equal(stored.length, 2);
    for (const p of stored) assert.match(p, /^sealed-v1:/);
    const again = await loadKeyManager(sealed);
    await again.verify(token, { typ: "JWT", issuer: "i", currentDate: new Date(clock.now()) });
    const t2 = again.sign({ iss: "i", iat: 0, exp: 2e9 });
    await again.verify(t2, { typ: "JWT", issuer: "i", currentDate: new Date(clock.now()) });
  }));

Deno.test("a restart with another secret, or none, refuses with a clear message", () =>
  withKv(async (o) => {
    const first = await loadKeyManager({ ...o, sealer: createKeySealer(SECRET_A) });
    await assert.rejects(
      loadKeyManager({ ...o, sealer: createKeySealer(SECRET_B) }),
      new RegExp(
        `^Error: keys.encryption_key does not open the signing key "${first.activeKid}" ` +
          "in the store: it was sealed under another secret",
      ),
    );
    await assert.rejects(
      loadKeyManager(o),
      /the signing keys in the store are sealed, but keys.encryption_key is not set/,
    );
    await assert.rejects(
      rotateStoreKey({ ...o, sealer: createKeySealer(SECRET_B) }),
      /sealed under another secret/,
    );
    // Nothing was written by the refused starts.
    assert.equal(
      (await loadKeyManager({ ...o, sealer: createKeySealer(SECRET_A) })).activeKid,
      first.activeKid,
    );
  }));

Deno.test("setting keys.encryption_key seals the keys already stored in the clear", () =>
  withKv(async (o) => {
    const plain = await loadKeyManager(o);
    const [before] = await storedPrivates(o);
    assert.doesNotMatch(before!, /^sealed-v1:/);
    const sealed = await loadKeyManager({ ...o, sealer: createKeySealer(SECRET_A) });
    assert.equal(sealed.activeKid, plain.activeKid);
    const [after] = await storedPrivates(o);
    assert.match(after!, /^sealed-v1:/);
  }));

Deno.test("resealKeyRing() moves every key to the new secret (and back to plain)", () =>
  withKv(async (o) => {
    const a = { ...o, sealer: createKeySealer(SECRET_A) };
    const kid = (await loadKeyManager(a)).activeKid;
    await rotateStoreKey(a);
    assert.deepEqual(await resealKeyRing(a, createKeySealer(SECRET_B)), {
      resealed: 2,
      fromPlaintext: 0,
    });
    await assert.rejects(loadKeyManager(a), /sealed under another secret/);
    const b = await loadKeyManager({ ...o, sealer: createKeySealer(SECRET_B) });
    assert.deepEqual(b.jwks().keys.map((k) => k.kid).includes(kid), true);
    assert.deepEqual(
      await resealKeyRing({ ...o, sealer: createKeySealer(SECRET_B) }, undefined),
      { resealed: 2, fromPlaintext: 0 },
    );
    for (const p of await storedPrivates(o)) assert.doesNotMatch(p, /^sealed-v1:/);
    await loadKeyManager(o);
    // From plaintext: the caller learns the keys were plain before, so it can say to rotate.
    assert.deepEqual(await resealKeyRing(o, createKeySealer(SECRET_A)), {
      resealed: 2,
      fromPlaintext: 2,
    });
  }));

Deno.test("without keys.encryption_key start-up says once that the store key is unencrypted", () =>
  withKv(async (o) => {
    const { log, lines } = createMemoryLogger();
    await loadKeyManager({ ...o, log });
    const notices = lines.filter((l) => /unencrypted/.test(String(l.msg)));
    assert.equal(notices.length, 1);
    assert.equal(notices[0]!.level, "warn");
    const sealedLog = createMemoryLogger();
    await loadKeyManager({ ...o, log: sealedLog.log, sealer: createKeySealer(SECRET_A) });
    const msgs = sealedLog.lines.map((l) => String(l.msg));
    assert.equal(msgs.filter((m) => /kept in the store unencrypted/.test(m)).length, 0);
    // Sealing the plain key at this start: its earlier copies remain, so it says to rotate.
    assert.equal(
      msgs.filter((m) => /^sealed the signing keys.*run `keys rotate`/.test(m)).length,
      1,
    );
  }));

Deno.test("a rotated key is published at once but signs only after the activation delay", () =>
  withKv(async (o, clock) => {
    const shared = { ...o, activationDelayMs: 6_000 };
    const running = await loadKeyManager(shared);
    const before = running.activeKid;
    clock.advance(1000);
    const { kid } = await rotateStoreKey(shared);
    await running.reload();
    // Published by every instance that re-read the ring, while all still sign with the old key.
    assert.deepEqual(running.jwks().keys.map((k) => k.kid).sort(), [before, kid].sort());
    assert.equal(running.activeKid, before);
    const { kid: signedBy } = JSON.parse(atob(running.sign({ iss: "i" }).split(".")[0]!));
    assert.equal(signedBy, before);
    clock.advance(5_999);
    assert.equal(running.activeKid, before);
    clock.advance(1);
    assert.equal(running.activeKid, kid);
    const { kid: now } = JSON.parse(atob(running.sign({ iss: "i" }).split(".")[0]!));
    assert.equal(now, kid);
    // A process starting after the delay signs with the new key straight away.
    assert.equal((await loadKeyManager(shared)).activeKid, kid);
  }));
