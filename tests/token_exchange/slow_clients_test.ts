/**
 * Slow clients: a request body trickled a byte at a time is cut off by `server.body_timeout`,
 * and one address holds at most `rate_limit.max_concurrent` requests in progress.
 */
import assert from "node:assert/strict";
import { internalToml, SECRET } from "../support/internal_api.ts";
import { startTokenServer } from "../support/token_server.ts";
import { waitFor } from "../support/wait.ts";
import { stalledRequest as stalled } from "../support/stalled_request.ts";

Deno.test("slow clients: a body not received within server.body_timeout is 408 on every body-reading endpoint", async (t) => {
  await using te = await startTokenServer({
    toml: `[server]\nbody_timeout = "1s"\n[grants]\nid_token = true\n` + internalToml(),
  });
  const auth = { authorization: `Bearer ${SECRET}` };
  const cases: [string, string, Parameters<typeof stalled>[2]][] = [
    ["/token (content-length)", `${te.url}|/token`, {}],
    ["/token (chunked)", `${te.url}|/token`, { chunked: true }],
    ["/revoke", `${te.url}|/revoke`, {}],
    ["/nonce", `${te.url}|/nonce`, { sent: "" }],
    ["internal POST /internal/users", `${te.internalUrl}|/internal/users`, {
      headers: auth,
      sent: '{"external_id":',
    }],
    ["internal POST /internal/introspect", `${te.internalUrl}|/internal/introspect`, {
      headers: auth,
      sent: "token=",
    }],
  ];
  for (const [name, target, options] of cases) {
    await t.step(name, async () => {
      const [base, path] = target.split("|") as [string, string];
      const started = performance.now();
      const req = await stalled(base, path, options);
      try {
        const answer = await req.answer();
        assert.notEqual(answer, "no answer", "the server waited for the body indefinitely");
        if (answer === "no answer") return;
        assert.equal(answer.status, 408, answer.body);
        assert.deepEqual(JSON.parse(answer.body), {
          error: "invalid_request",
          error_description: "The request body was not received in time",
        });
        assert.ok(performance.now() - started < 4000);
      } finally {
        req.close();
      }
    });
  }
});

Deno.test("slow clients: one address holds at most rate_limit.max_concurrent requests in progress", async () => {
  await using te = await startTokenServer({
    // Long enough that both stalled requests still hold their slots when the third comes, on
    // however busy a machine.
    toml: `[server]\nbody_timeout = "5s"\n[rate_limit]\nmax_concurrent = 2\n`,
  });
  const refresh = () =>
    fetch(`${te.url}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=refresh_token&refresh_token=nope",
    });
  const held = [await stalled(te.url, "/token"), await stalled(te.url, "/revoke")];
  try {
    // Once both stalled requests reached the handler, a third from the same address is refused
    // (until then it is simply answered: invalid_grant).
    const refused = await waitFor(async () => {
      const res = await refresh();
      if (res.status === 429) return res;
      await res.body?.cancel();
    }, "the third request to be refused");
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.equal((await refused.json()).error, "slow_down");
    for (const h of held) assert.equal((await h.answer()) !== "no answer", true);
    // Both timed out and gave their slots back: the address is admitted again.
    const admitted = await refresh();
    assert.equal(admitted.status, 400);
    assert.equal((await admitted.json()).error, "invalid_grant");
  } finally {
    for (const h of held) h.close();
  }
});
