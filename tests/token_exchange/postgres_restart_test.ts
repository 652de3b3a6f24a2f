/**
 * The service as its own process rides out PostgreSQL being restarted again and again under
 * refreshes and webhook passes: the process stays up, and every rotation and event it
 * acknowledged is still there afterwards (fsync on, half the stops `-m immediate`).
 *
 * This file always starts its own PostgreSQL (it stops and restarts it).
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { sleep } from "@org/shared";
import { adminFetch, internalToml } from "../support/internal_api.ts";
import { startOidcProvider } from "../support/oidc.ts";
import { startTestPostgres } from "../support/postgres.ts";
import { refreshLoad, refreshRequest } from "../support/refresh_load.ts";
import { codeSignIn, providerToml, spawnTokenServer } from "../support/token_server.ts";
import { waitFor } from "../support/wait.ts";
import { startWebhookReceiver } from "../support/webhook_receiver.ts";

const RESTARTS = 20;
const CHAINS = 4;
const WHSEC = "whsec_" + btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
const GENERIC = {
  error: "server_error",
  error_description: "The server could not complete the request",
};

/**
 * Users created per second at most: every restart needs new events in flight, and the load must
 * stay bounded, or an idle machine acknowledges tens of thousands the sender then has to deliver.
 */
const USERS_PER_SECOND = 10;

/** Creates users one after another until stopped; a user is acknowledged by its 201 (or 409 on a retry). */
function userLoad(te: { internalUrl: string | undefined }) {
  const acknowledged = new Set<string>();
  let running = true;
  const done = (async () => {
    for (let n = 0; running;) {
      const external_id = `restart-${n}`;
      let status: number;
      try {
        const res = await adminFetch(te, "POST", "/internal/users", {
          body: { provider: "idp", external_id, email: `${external_id}@example.com` },
        });
        await res.body?.cancel();
        status = res.status;
      } catch {
        status = 0; // no whole answer
      }
      // 409: an earlier attempt whose answer was lost did commit the user (and its event).
      if (status === 201 || status === 409) {
        acknowledged.add(external_id);
        n++;
        await sleep(1000 / USERS_PER_SECOND);
      } else if (status !== 0 && status < 500) {
        throw new Error(`user creation refused: ${status}`);
      } else {
        await sleep(50);
      }
    }
  })();
  return {
    acknowledged,
    async stop() {
      running = false;
      await done;
    },
  };
}

Deno.test({
  name:
    `PostgreSQL restarted ${RESTARTS} times under refreshes and webhook passes: the process stays up, nothing acknowledged is lost`,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using pg = await startTestPostgres({ own: true });
    await using idp = await startOidcProvider();
    await using receiver = startWebhookReceiver(WHSEC);
    const url = await pg.schema("restarts");
    const check = postgres(pg.url, { max: 1, onnotice: () => {} });
    try {
      // Durability is only meaningful with fsync on (the tests' server keeps the default).
      assert.equal((await check`show fsync`)[0]!.fsync, "on");
    } finally {
      await check.end();
    }
    const toml = `[server]\nport = 0\n[storage]\nurl = "\${TE_DATABASE_URL}"\npool_size = 4\n` +
      `[rate_limit]\nenabled = false\n` +
      // A request caught on a connection that never sends again fails only when the pool is
      // replaced (30 s); the client's retry with the same token must still be inside the grace
      // window, or it is reuse (docs/operations.md, Failures).
      `[token]\nrefresh_grace = "60s"\n` + internalToml("port = 0\n") +
      `[[webhooks.endpoints]]\nurl = "${receiver.url}"\nsecret = "\${W}"\n` +
      providerToml("idp", idp.issuer);
    const te = await spawnTokenServer({ toml, env: { TE_DATABASE_URL: url, W: WHSEC } });
    let stopped = { code: -1, stderr: "" };
    try {
      const firsts = await Promise.all(
        Array.from({ length: CHAINS }, async () => (await codeSignIn(te.url)).refresh_token),
      );
      const load = refreshLoad([te], firsts);
      const users = userLoad(te);
      for (let i = 0; i < RESTARTS; i++) {
        const ok = load.result.ok;
        const made = users.acknowledged.size;
        await waitFor(
          () => load.result.ok > ok && users.acknowledged.size > made,
          `refreshes and a user answered before stop ${i + 1}`,
        );
        await pg.stop(i % 2 === 0 ? "immediate" : "fast");
        assert.ok(te.alive(), `the process is up after stop ${i + 1}`);
        await pg.start();
      }
      await waitFor(() => load.result.okAfterErrors > 0, "a refresh answered after the last start");
      const result = await load.stop();
      await users.stop();
      assert.ok(te.alive(), "the process is up after every restart");
      for (const e of result.serverErrors) assert.deepEqual(e, { status: 500, body: GENERIC });

      // Every acknowledged rotation survived: each chain's last token still refreshes (a pooled
      // connection idle through the last restart may fail one first query with the clean 500).
      for (const token of result.last) {
        await waitFor(async () => {
          const res = await refreshRequest(te, token);
          const body = await res.json();
          if (res.status >= 500) return false;
          assert.equal(res.status, 200, JSON.stringify(body));
          return true;
        }, "the last acknowledged token to refresh");
      }
      // Every acknowledged event survived and is delivered.
      const delivered = () =>
        new Set(
          receiver.received.filter((r) => r.verified && r.type === "user.created").map((r) =>
            (r.data.user as { external_id: string }).external_id
          ),
        );
      await waitFor(
        () => [...users.acknowledged].every((id) => delivered().has(id)),
        `${users.acknowledged.size} acknowledged user.created events delivered`,
      );
      const health = await fetch(`${te.url}/health`);
      await health.body?.cancel();
      assert.equal(health.status, 200);
    } finally {
      stopped = await te.stop("SIGTERM");
      await Deno.remove(te.dir, { recursive: true });
    }
    // A client fault caught on the way is logged as contained, never uncaught.
    assert.doesNotMatch(stopped.stderr, /Uncaught/);
    assert.equal(stopped.code, 0, "a clean shutdown after the restarts");
  },
});
