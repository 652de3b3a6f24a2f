import assert from "node:assert/strict";
import { createMemoryLogger, FixedClock } from "@org/shared";
import { testConfig } from "../../tests/support/token_server.ts";
import { createKeySealer } from "../keys/key_seal.ts";
import { Metrics } from "../metrics/metrics.ts";
import { createKvStore } from "../store/kv_store.ts";
import {
  openProviderToken,
  processRevocations,
  REVOKE_BACKOFF_MAX_MS,
  REVOKE_MAX_ATTEMPTS,
  revokeBackoff,
  sealProviderToken,
} from "./apple_revocation.ts";

Deno.test("revokeBackoff() waits 30 s after the first failure, doubles, and stops at 6 hours", () => {
  assert.deepEqual([1, 2, 3, 4].map(revokeBackoff), [30_000, 60_000, 120_000, 240_000]);
  assert.equal(revokeBackoff(40), REVOKE_BACKOFF_MAX_MS);
});

Deno.test("sealProviderToken() seals for one user and provider: another user's record does not open", () => {
  const sealer = createKeySealer("s".repeat(32));
  const kept = sealProviderToken(sealer, "usr_a", "apple", "r.tok-en");
  assert.ok(!kept.sealed.includes("r.tok-en"));
  assert.equal(openProviderToken(sealer, kept), "r.tok-en");
  assert.equal(openProviderToken(sealer, { ...kept, user_id: "usr_b" }), undefined);
  assert.equal(openProviderToken(sealer, { ...kept, provider: "apple2" }), undefined);
  assert.equal(openProviderToken(createKeySealer("t".repeat(32)), kept), undefined);
});

Deno.test("processRevocations() gives a job up after its last attempt, logged as an error and counted", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = new FixedClock(1_700_000_000_000);
    const store = createKvStore(kv, clock);
    const config = testConfig(`[keys]\nencryption_key = "${"s".repeat(32)}"\n`);
    const { log, lines } = createMemoryLogger();
    const metrics = new Metrics();
    const deps = {
      config: { ...config, server: { ...config.server, issuer: "http://127.0.0.1" } },
      store,
      providers: new Map(), // the provider was removed from the config: every attempt fails
      clock,
      log,
      metrics,
    };
    const sealer = createKeySealer("s".repeat(32));
    await store.providerTokens.keep(sealProviderToken(sealer, "usr_a", "apple", "tok"));
    await store.providerTokens.queue("usr_a", clock.now());
    for (let i = 1; i < REVOKE_MAX_ATTEMPTS; i++) {
      assert.deepEqual(await processRevocations(deps), {
        revoked: 0,
        failed: 1,
        abandoned: 0,
        pending: 1,
      });
      clock.advance(REVOKE_BACKOFF_MAX_MS);
    }
    assert.deepEqual(await processRevocations(deps), {
      revoked: 0,
      failed: 0,
      abandoned: 1,
      pending: 0,
    });
    const given = lines.find((l) => l.msg === "provider token revocation given up");
    assert.equal(given?.level, "error");
    assert.match(String(given?.error), /provider "apple" is no longer configured/);
    assert.match(
      metrics.render(),
      /token_exchange_provider_revocations_total\{outcome="abandoned"\} 1/,
    );
  } finally {
    kv.close();
  }
});
