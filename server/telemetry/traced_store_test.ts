import assert from "node:assert/strict";
import { FixedClock } from "@org/shared";
import { createKvStore } from "../store/kv_store.ts";
import { tracedStore } from "./traced_store.ts";
import type { SpanAttributes, Tracing } from "./tracing.ts";

/** A tracing inside an open trace that records the spans it is asked for. */
function recordingTracing() {
  const spans: { name: string; attributes: SpanAttributes }[] = [];
  const tracing: Tracing = {
    inSpan: (name, attributes, work) => {
      spans.push({ name, attributes });
      return work({ setAttributes() {}, fail() {} });
    },
    annotate() {},
    traceId: () => "0af7651916cd43dd8448eb211c80319c",
    traceHeaders: () => ({}),
  };
  return { tracing, spans };
}

Deno.test("tracedStore() runs each store operation in a span named after its concern and method", async () => {
  using kv = await Deno.openKv(":memory:");
  const { tracing, spans } = recordingTracing();
  const store = tracedStore(createKvStore(kv, new FixedClock()), tracing, "deno_kv");
  assert.equal(await store.users.get("usr_missing"), undefined);
  assert.equal(await store.sessions.getRefresh("nope"), undefined);
  await store.ping();
  assert.deepEqual(spans, [
    {
      name: "store users.get",
      attributes: { "db.system.name": "deno_kv", "db.operation.name": "users.get" },
    },
    {
      name: "store sessions.getRefresh",
      attributes: { "db.system.name": "deno_kv", "db.operation.name": "sessions.getRefresh" },
    },
    {
      name: "store ping",
      attributes: { "db.system.name": "deno_kv", "db.operation.name": "ping" },
    },
  ]);
});

Deno.test("tracedStore() answers exactly as the store it wraps", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new FixedClock();
  const plain = createKvStore(kv, clock);
  const store = tracedStore(plain, recordingTracing().tracing, "deno_kv");
  const [now, end] = [clock.now(), clock.now() + 86_400_000];
  const family = {
    id: "ses_1",
    user_id: "usr_1",
    created_at: now,
    expires_at: end,
    revoked: false,
  };
  const refresh = {
    hash: "h1",
    family_id: "ses_1",
    user_id: "usr_1",
    issued_at: now,
    expires_at: end,
  };
  await store.sessions.create(family, refresh);
  assert.deepEqual(await plain.sessions.getRefresh("h1"), await store.sessions.getRefresh("h1"));
  assert.equal(await store.sessions.revokeFamily("ses_1", now), true);
  assert.equal((await plain.sessions.getFamily("ses_1"))?.revoked, true);
});

Deno.test("tracedStore() outside a span (an unsampled request) runs the plain operation, asking for no span", async () => {
  using kv = await Deno.openKv(":memory:");
  let active = false;
  const { tracing, spans } = recordingTracing();
  const store = tracedStore(
    createKvStore(kv, new FixedClock()),
    { ...tracing, active: () => active },
    "deno_kv",
  );
  assert.equal(await store.users.get("usr_missing"), undefined);
  await store.ping();
  assert.equal(spans.length, 0);
  active = true;
  await store.ping();
  assert.deepEqual(spans.map((s) => s.name), ["store ping"]);
});
