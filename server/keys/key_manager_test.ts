import assert from "node:assert/strict";
import { FixedClock, silentLogger } from "@org/shared";
import { createKvStore } from "../store/kv_store.ts";
import { exportPkcs8Pem, generateEd25519, thumbprint } from "./ed25519.ts";
import { type KeyManagerOptions, loadKeyManager, rotateStoreKey } from "./key_manager.ts";

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
