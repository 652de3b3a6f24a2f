/**
 * Webhook delivery under crashes and concurrency, with the real service as its own process(es):
 * an event survives `kill -9` of the process sending it, and two instances on one PostgreSQL
 * deliver 1,000 events to one receiver, each successfully exactly once.
 */
import assert from "node:assert/strict";
import { cryptoRandom, systemClock } from "@org/shared";
import { AuditTrail, SERVICE_ACTOR } from "../../server/audit/audit_trail.ts";
import { endpointId } from "../../server/config/webhooks.ts";
import { openPostgres } from "../../server/store/pg_connection.ts";
import { createPgStore } from "../../server/store/pg_store.ts";
import type { WebhookEndpoint } from "../../server/webhooks/event_types.ts";
import { WebhookEvents } from "../../server/webhooks/events.ts";
import { adminJson, internalToml } from "../support/internal_api.ts";
import { startTestPostgres } from "../support/postgres.ts";
import { spawnTokenServer } from "../support/token_server.ts";
import { testUser } from "../support/users.ts";
import { waitFor } from "../support/wait.ts";

const KEY = crypto.getRandomValues(new Uint8Array(32));
const WHSEC = "whsec_" + btoa(String.fromCharCode(...KEY));

/** One request a receiver got: its `webhook-id` and the status it was answered with. */
interface Hit {
  readonly id: string;
  readonly status: number;
}

/**
 * A loopback receiver answering each request with what `answer` decides (a status, or a
 * promise of one: a receiver that takes its time).
 */
function startReceiver(answer: (id: string, hits: readonly Hit[]) => number | Promise<number>) {
  const hits: Hit[] = [];
  const arrived: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    await req.body?.cancel();
    const id = req.headers.get("webhook-id") ?? "";
    arrived.push(id);
    const status = await answer(id, hits);
    hits.push({ id, status });
    return new Response(null, { status });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/hook`,
    hits,
    arrived,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** Both listeners on free ports, the internal API on, one webhook endpoint at `url`. */
function serverToml(url: string, extra = ""): string {
  return `[server]\nport = 0\n${extra}` + internalToml("port = 0\n") +
    `[[webhooks.endpoints]]\nurl = "${url}"\nsecret = "\${W}"\n`;
}

Deno.test("webhooks: an event whose send was cut by kill -9 is delivered after the restart", async () => {
  // The first request is never answered: the process dies while it waits, after the commit
  // and the send, before it could settle the message.
  const { promise: released, resolve: release } = Promise.withResolvers<number>();
  await using receiver = startReceiver((_id, hits) => hits.length === 0 ? released : 204);
  const dir = await Deno.makeTempDir({ prefix: "te-kill-" });
  const options = { dir, toml: serverToml(receiver.url), env: { W: WHSEC } };
  try {
    const first = await spawnTokenServer(options);
    let killed: { code: number };
    try {
      await adminJson(first, "POST", "/internal/users", 201, {
        body: { provider: "idp", external_id: "k", email: "k@example.com", display_name: "K" },
      });
      await waitFor(() => receiver.arrived.length === 1, "the first send");
    } finally {
      killed = await first.stop("SIGKILL");
    }
    assert.notEqual(killed.code, 0);
    release(503); // the dead process's request: nobody reads this answer

    // The restarted process finds the message in the store and sends it once its dead
    // predecessor's lease (30 s) has passed.
    await using _restarted = await spawnTokenServer(options);
    const delivered = await waitFor(
      () => receiver.hits.find((h) => h.status === 204),
      "the delivery after the restart",
    );
    assert.equal(delivered.id, receiver.arrived[0], "the same message, same webhook-id");
    assert.equal(receiver.hits.filter((h) => h.status === 204).length, 1);
  } finally {
    release(503);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "webhooks: two instances on PostgreSQL deliver 1,000 events, each successfully once; duplicates only after an ambiguous failure",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const EVENTS = 1000;
    await using pg = await startTestPostgres();
    // Three messages are processed by the receiver but answered 500 the first time (as if the
    // answer were lost): the sender cannot tell, so it sends them again.
    const ambiguous = new Set<number>([10, 500, 990]);
    const order: string[] = [];
    await using receiver = startReceiver((id, hits) => {
      if (!order.includes(id)) order.push(id);
      const n = order.indexOf(id);
      return ambiguous.has(n) && !hits.some((h) => h.id === id) ? 500 : 204;
    });
    const url = await pg.schema("webhooks_1000");
    const toml = serverToml(
      receiver.url,
      `[storage]\nurl = "\${TE_DATABASE_URL}"\npool_size = 4\n`,
    );
    const env = { TE_DATABASE_URL: url, W: WHSEC };
    const dirs = [
      await Deno.makeTempDir({ prefix: "te-wh-" }),
      await Deno.makeTempDir({ prefix: "te-wh-" }),
    ];
    const servers = await Promise.all(dirs.map((dir) => spawnTokenServer({ dir, toml, env })));
    const sql = openPostgres({ url, poolSize: 4 });
    try {
      // The events commit with their users through the store, as the service's own writes do,
      // while both instances are delivering.
      const store = createPgStore(sql, systemClock);
      const endpoint: WebhookEndpoint = {
        id: endpointId(receiver.url),
        url: receiver.url,
        secret: KEY,
        events: ["user.created"],
      };
      const events = new WebhookEvents(
        [endpoint],
        systemClock,
        cryptoRandom,
        new AuditTrail(86400, systemClock, cryptoRandom),
      );
      for (let batch = 0; batch < EVENTS / 50; batch++) {
        await Promise.all(Array.from({ length: 50 }, (_, i) => {
          const n = batch * 50 + i;
          const user = testUser(n, systemClock.now());
          return store.users.create(user, events.userCreated(user, "admin", SERVICE_ACTOR));
        }));
      }
      const delivered = () =>
        new Set(receiver.hits.filter((h) => h.status === 204).map((h) => h.id));
      await waitFor(() => delivered().size === EVENTS, "1,000 events delivered", 200, 300_000);
      await waitFor(
        async () => (await store.outbox.pending(endpoint.id, 1)).length === 0,
        "an empty outbox",
      );

      const successes = receiver.hits.filter((h) => h.status === 204);
      assert.equal(successes.length, EVENTS, "each event delivered successfully exactly once");
      const failedFirst = new Set(receiver.hits.filter((h) => h.status !== 204).map((h) => h.id));
      const sentTwice = new Set(
        receiver.hits.map((h) => h.id).filter((id, i, all) => all.indexOf(id) !== i),
      );
      assert.deepEqual(
        [...sentTwice].sort(),
        [...failedFirst].sort(),
        "sent again only after an answer that was not a success",
      );
      assert.equal(failedFirst.size, ambiguous.size);
    } finally {
      await sql.end();
      await Promise.all(servers.map((s) => s.stop("SIGTERM")));
      for (const dir of dirs) await Deno.remove(dir, { recursive: true });
    }
  },
});
