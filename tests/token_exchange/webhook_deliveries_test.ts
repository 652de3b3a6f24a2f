/**
 * The webhook deliveries API on both stores (Deno KV, PostgreSQL): every attempt of a receiver
 * that fails, times out and recovers is listed; the list pages and filters like the other
 * lists; a redelivery queues a settled message again, once however often it is asked for.
 */
import assert from "node:assert/strict";
import { FixedClock } from "@org/shared";
import { adminFetch, adminJson, internalToml } from "../support/internal_api.ts";
import { storeBackends } from "../support/store_backends.ts";
import { startTokenServer, type TokenServer } from "../support/token_server.ts";
import { startWebhookReceiver } from "../support/webhook_receiver.ts";
import type { Scheduler } from "../../server/scheduler.ts";
import { WebhookSender } from "../../server/webhooks/sender.ts";
import type { DeliveryView } from "../../server/webhooks/delivery_view.ts";

const WHSEC = "whsec_" + btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));

/** The service's own sender never runs: the tests send through theirs, with a short timeout. */
const manual: Scheduler = { every: () => () => {} };

const stores = storeBackends("webhook deliveries");

interface Page {
  deliveries: DeliveryView[];
  next_cursor: string | null;
}

async function start(storage: string, receiverUrl: string, clock: FixedClock) {
  const te = await startTokenServer({
    clock,
    scheduler: manual,
    env: { W: WHSEC },
    toml: internalToml() + storage +
      `[[webhooks.endpoints]]\nurl = "${receiverUrl}"\nsecret = "\${W}"\n` +
      `events = ["user.created", "user.deleted"]\n`,
  });
  const sender = new WebhookSender({
    ...te.server.deps,
    endpoints: te.server.deps.config.webhooks.endpoints,
    retentionMs: te.server.deps.config.webhooks.retention * 1000,
    owner: "test",
    // Long enough for a loopback answer on a busy machine: only the held attempt reaches it.
    attemptTimeoutMs: 2_000,
  });
  return { te, sender };
}

async function createUsers(te: TokenServer, names: readonly string[]): Promise<void> {
  for (const n of names) {
    await adminJson(te, "POST", "/internal/users", 201, {
      body: { provider: "idp", external_id: n, email: `${n}@example.com` },
    });
  }
}

const externalId = (data: Record<string, unknown>) =>
  (data.user as { external_id: string }).external_id;

stores.test(
  "a receiver that fails, times out, then recovers gets every event in order; each attempt is listed",
  async (storage) => {
    await using receiver = startWebhookReceiver(WHSEC);
    const clock = new FixedClock();
    const { te, sender } = await start(storage, receiver.url, clock);
    await using _ = te;
    await createUsers(te, ["u1", "u2", "u3"]);
    const pending = await adminJson<Page>(te, "GET", "/internal/webhooks/deliveries", 200);
    assert.deepEqual(pending.deliveries.map((d) => [d.state, d.attempts.length]), [
      ["pending", 0],
      ["pending", 0],
      ["pending", 0],
    ]);

    receiver.answer = 503;
    assert.equal(await sender.deliverDue(), 0);
    clock.advance(5_000);
    receiver.answer = 204;
    receiver.holding = true; // no answer: the sender's 2 s timeout ends each attempt
    assert.equal(await sender.deliverDue(), 0);
    clock.advance(10_000);
    receiver.release();
    assert.equal(await sender.deliverDue(), 3);

    // Head first, each retried until acknowledged, none skipped, none lost.
    const seen = receiver.received.map((r) => externalId(r.data));
    assert.deepEqual(seen, ["u1", "u1", "u1", "u2", "u3"]);
    assert.equal(new Set(receiver.received.slice(0, 3).map((r) => r.id)).size, 1);
    assert.ok(receiver.received.every((r) => r.verified));

    const page = await adminJson<Page>(te, "GET", "/internal/webhooks/deliveries", 200);
    assert.deepEqual(page.deliveries.map((d) => d.state), ["delivered", "delivered", "delivered"]);
    const first = page.deliveries[2]!;
    assert.equal(first.message_id, receiver.received[0]!.id);
    assert.equal(first.url, receiver.url);
    assert.equal(first.type, "user.created");
    assert.equal(first.next_attempt_at, null);
    assert.deepEqual(first.attempts.map((a) => [a.status, a.error]), [
      [503, "HTTP 503"],
      [null, "no answer within 2s"],
      [204, null],
    ]);
    assert.deepEqual(first.attempts.map((a) => a.at), [
      new Date(clock.now() - 15_000).toISOString(),
      new Date(clock.now() - 10_000).toISOString(),
      new Date(clock.now()).toISOString(),
    ]);
    assert.ok(first.attempts[1]!.duration_ms >= 300, "the timed-out attempt took its timeout");
    assert.ok(first.attempts.every((a) => Number.isInteger(a.duration_ms) && a.duration_ms >= 0));
    // Nothing left to send.
    assert.equal(await sender.deliverDue(), 0);
  },
);

stores.test("the list pages newest first and filters by endpoint, type and state", async (storage) => {
  await using receiver = startWebhookReceiver(WHSEC);
  const clock = new FixedClock();
  const { te, sender } = await start(storage, receiver.url, clock);
  await using _ = te;
  await createUsers(te, ["a", "b", "c"]);
  await sender.deliverDue();
  const d = await adminJson<{ id: string }>(te, "POST", "/internal/users", 201, {
    body: { provider: "idp", external_id: "d", email: "d@example.com" },
  });
  await adminJson(te, "DELETE", `/internal/users/${d.id}`, 200);
  const list = (q: string) => adminJson<Page>(te, "GET", `/internal/webhooks/deliveries${q}`, 200);

  const p1 = await list("?limit=2");
  assert.deepEqual(p1.deliveries.map((x) => x.type), ["user.deleted", "user.created"]);
  assert.equal(p1.deliveries[1]!.state, "pending");
  assert.ok(p1.next_cursor);
  const p2 = await list(`?limit=2&cursor=${p1.next_cursor}`);
  const p3 = await list(`?limit=2&cursor=${p2.next_cursor}`);
  assert.equal(p3.next_cursor, null);
  const all = [...p1.deliveries, ...p2.deliveries, ...p3.deliveries];
  assert.equal(all.length, 5);
  assert.equal(new Set(all.map((x) => x.id)).size, 5, "no delivery on two pages");

  const endpoint = te.server.deps.config.webhooks.endpoints[0]!.id;
  assert.equal((await list(`?endpoint=${endpoint}`)).deliveries.length, 5);
  assert.equal((await list("?endpoint=whe_unknown")).deliveries.length, 0);
  assert.deepEqual(
    (await list("?state=delivered")).deliveries.map((x) =>
      externalId(
        receiver.received.find((r) => r.id === x.message_id)!.data,
      )
    ),
    ["c", "b", "a"],
  );
  assert.deepEqual((await list("?type=user.deleted&state=pending")).deliveries.length, 1);
  assert.equal((await list("?type=user.deleted&state=delivered")).deliveries.length, 0);

  for (const bad of ["?state=sent", "?type=user.exploded", "?limit=0", "?cursor=nope"]) {
    const res = await adminFetch(te, "GET", `/internal/webhooks/deliveries${bad}`);
    assert.equal(res.status, 400, bad);
    assert.equal((await res.json()).error, "invalid_request");
  }
  // A cursor of another list is not a cursor of this one.
  const users = await adminJson<{ next_cursor: string }>(te, "GET", "/internal/users?limit=1", 200);
  const res = await adminFetch(
    te,
    "GET",
    `/internal/webhooks/deliveries?cursor=${users.next_cursor}`,
  );
  assert.equal(res.status, 400);
  await res.body?.cancel();
});

stores.test("a redelivery queues a settled delivery again, once, and is audited", async (storage) => {
  await using receiver = startWebhookReceiver(WHSEC);
  const clock = new FixedClock();
  const { te, sender } = await start(storage, receiver.url, clock);
  await using _ = te;
  await createUsers(te, ["r1", "r2"]);
  assert.equal(await sender.deliverDue(), 2);
  const { deliveries } = await adminJson<Page>(te, "GET", "/internal/webhooks/deliveries", 200);
  const r1 = deliveries[1]!;
  const path = `/internal/webhooks/deliveries/${r1.id}/redeliver`;

  const queued = await adminJson<DeliveryView>(te, "POST", path, 202);
  assert.equal(queued.id, r1.id);
  assert.equal(queued.state, "pending");
  assert.equal(queued.attempts.length, 1, "its earlier attempts are kept");
  const again = await adminJson<DeliveryView>(te, "POST", path, 202);
  assert.equal(again.state, "pending");

  assert.equal(await sender.deliverDue(), 1, "asked twice, sent once");
  const last = receiver.received[receiver.received.length - 1]!;
  assert.equal(last.id, r1.message_id, "the same webhook-id: receivers deduplicate on it");
  assert.equal(externalId(last.data), "r1");
  const after = await adminJson<Page>(te, "GET", "/internal/webhooks/deliveries", 200);
  const record = after.deliveries.find((d) => d.id === r1.id)!;
  assert.equal(record.state, "delivered");
  assert.deepEqual(record.attempts.map((a) => a.status), [204, 204]);

  const audit = await adminJson<{ records: { action: string; details: { delivery: string } }[] }>(
    te,
    "GET",
    "/internal/audit?action=webhook.redeliver",
    200,
  );
  assert.deepEqual(audit.records.map((r) => r.details.delivery), [r1.id]);

  const unknown = `dlv_${"0".repeat(26)}${r1.endpoint.slice(4)}`;
  for (const id of [unknown, "dlv_nope", "msg_x"]) {
    const res = await adminFetch(te, "POST", `/internal/webhooks/deliveries/${id}/redeliver`);
    assert.equal(res.status, 404, id);
    assert.equal((await res.json()).error, "not_found");
  }
});

// Last: registered after every case, so it runs after them.
stores.stopAfterAll();
