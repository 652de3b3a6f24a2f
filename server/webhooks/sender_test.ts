import assert from "node:assert/strict";
import { createMemoryLogger, cryptoRandom, FixedClock } from "@org/shared";
import { startTestPostgres } from "../../tests/support/postgres.ts";
import { testUser } from "../../tests/support/users.ts";
import { startWebhookReceiver } from "../../tests/support/webhook_receiver.ts";
import { endpointId } from "../config/webhooks.ts";
import { Metrics } from "../metrics/metrics.ts";
import { createKvStore } from "../store/kv_store.ts";
import { openPostgres } from "../store/pg_connection.ts";
import { migrate } from "../store/pg_migrations.ts";
import { createPgStore } from "../store/pg_store.ts";
import type { Store } from "../store/store.ts";
import type { WebhookEndpoint } from "./event_types.ts";
import { WebhookEvents } from "./events.ts";
import { WebhookSender } from "./sender.ts";
import { AuditTrail, SERVICE_ACTOR } from "../audit/audit_trail.ts";

const KEY = crypto.getRandomValues(new Uint8Array(32));
const WHSEC = "whsec_" + btoa(String.fromCharCode(...KEY));

function endpointAt(url: string): WebhookEndpoint {
  return { id: endpointId(url), url, secret: KEY, events: ["user.created"] };
}

/** The events the store commits beside each change, for one endpoint. */
function eventsFor(endpoint: WebhookEndpoint, clock: FixedClock): WebhookEvents {
  return new WebhookEvents(
    [endpoint],
    clock,
    cryptoRandom,
    new AuditTrail(86400, clock, cryptoRandom),
  );
}

function sender(
  store: Store,
  clock: FixedClock,
  endpoint: WebhookEndpoint,
  owner: string,
  attemptTimeoutMs = 10_000,
) {
  return new WebhookSender({
    store,
    clock,
    random: cryptoRandom,
    log: createMemoryLogger().log,
    metrics: new Metrics(),
    endpoints: [endpoint],
    retentionMs: 86_400_000,
    owner,
    attemptTimeoutMs,
  });
}

Deno.test({
  name: "sender: two instances on one PostgreSQL deliver 300 events, each exactly once, in order",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using pg = await startTestPostgres();
    await using receiver = startWebhookReceiver(WHSEC);
    const url = await pg.schema("two_senders");
    const pools = [openPostgres({ url, poolSize: 4 }), openPostgres({ url, poolSize: 4 })];
    try {
      await migrate(pools[0]!);
      const clock = new FixedClock();
      const [a, b] = pools.map((p) => createPgStore(p, clock)) as [Store, Store];
      const endpoint = endpointAt(receiver.url);
      const events = eventsFor(endpoint, clock);
      for (let n = 0; n < 300; n++) {
        const u = testUser(n, clock.now());
        await a.users.create(u, events.userCreated(u, "admin", SERVICE_ACTOR));
      }
      const senders = [sender(a, clock, endpoint, "a"), sender(b, clock, endpoint, "b")];
      for (let pass = 0; (await a.outbox.pending(endpoint.id, 1)).length > 0; pass++) {
        // Bounded: an attempt that failed waits for a clock that does not move here.
        assert.ok(pass < 1000, "every event delivered without a failed attempt");
        await Promise.all(senders.map((s) => s.deliverDue()));
      }
      const got = receiver.received.map((r) =>
        (r.data.user as { external_id: string }).external_id
      );
      assert.equal(got.length, 300, "no event sent twice, none lost");
      assert.deepEqual(got, Array.from({ length: 300 }, (_, n) => `e${n}`));
      assert.ok(receiver.received.every((r) => r.verified));
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  },
});

Deno.test("sender: an endpoint that does not answer within the attempt timeout is retried later", async () => {
  // The first request is held until the test lets it go: it can only end by the sender's
  // timeout, however slow the machine.
  let hang = true;
  const held = Promise.withResolvers<void>();
  const hits: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    hits.push(req.headers.get("webhook-id") ?? "");
    if (hang) await held.promise;
    return new Response(null, { status: 204 });
  });
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = new FixedClock();
    const store = createKvStore(kv, clock);
    const endpoint = endpointAt(`http://127.0.0.1:${server.addr.port}/`);
    const events = eventsFor(endpoint, clock);
    const u = testUser(1, clock.now());
    await store.users.create(u, events.userCreated(u, "sign_in", SERVICE_ACTOR));
    assert.equal(await sender(store, clock, endpoint, "a", 200).deliverDue(), 0);
    const [pending] = await store.outbox.pending(endpoint.id, 1);
    assert.equal(pending?.attempts, 1);
    assert.equal(pending?.last_error, "no answer within 0.2s");
    hang = false;
    held.resolve();
    clock.advance(5_000);
    assert.equal(await sender(store, clock, endpoint, "a").deliverDue(), 1);
    assert.equal(hits.length, 2);
    assert.equal(hits[0], hits[1]);
  } finally {
    held.resolve();
    kv.close();
    await server.shutdown();
  }
});

Deno.test("sender: an endpoint failing on one instance is reported failing by every instance, and logged once", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(null, { status: 503 }),
  );
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = new FixedClock();
    // Two instances on one shared store: each its own store object, metrics and log.
    const instances = ["a", "b"].map((owner) => {
      const logs = createMemoryLogger();
      const metrics = new Metrics();
      const store = createKvStore(kv, clock);
      return { owner, logs, metrics, store };
    });
    const endpoint = endpointAt(`http://127.0.0.1:${server.addr.port}/`);
    const events = eventsFor(endpoint, clock);
    const u = testUser(1, clock.now());
    await instances[0]!.store.users.create(u, events.userCreated(u, "sign_in", SERVICE_ACTOR));
    const senders = instances.map((i) =>
      new WebhookSender({
        store: i.store,
        clock,
        random: cryptoRandom,
        log: i.logs.log,
        metrics: i.metrics,
        endpoints: [endpoint],
        owner: i.owner,
        retentionMs: 86_400_000,
      })
    );
    // The instances take turns failing; neither alone reaches five failures.
    for (let attempt = 0; attempt < 5; attempt++) {
      await senders[attempt % 2]!.deliverDue();
      clock.advance(3_600_000);
    }
    for (const [n, s] of senders.entries()) {
      await s.deliverDue(); // the next pass reads the shared count (and fails once more)
      assert.equal(s.failing(endpoint.id), true);
      assert.match(
        instances[n]!.metrics.render(),
        new RegExp(`webhook_endpoint_failing\\{endpoint="${endpoint.id}"\\} 1`),
      );
      clock.advance(3_600_000);
    }
    const failingLines = instances.flatMap((i) => i.logs.lines)
      .filter((l) => l.msg === "webhook endpoint failing");
    assert.equal(failingLines.length, 1, "one line for the change, not one per instance");
  } finally {
    kv.close();
    await server.shutdown();
  }
});
