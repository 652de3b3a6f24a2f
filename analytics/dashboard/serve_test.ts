import assert from "node:assert/strict";
import { DeployError } from "@org/deploy/plugin";
import { serveDashboard } from "./serve.ts";

const ok = () => () => Promise.resolve(new Response("ok"));

Deno.test("serveDashboard() listens on 127.0.0.1 only and frees the port on shutdown", async () => {
  const server = serveDashboard(0, ok);
  assert.equal(server.url, `http://127.0.0.1:${server.port}/`);
  const res = await fetch(server.url);
  assert.equal(await res.text(), "ok");
  await server.shutdown();
  // The port is free again: a new listener can take it.
  const again = Deno.listen({ hostname: "127.0.0.1", port: server.port });
  again.close();
});

Deno.test("serveDashboard() on a taken port names analytics.dashboard.port", () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const err = (() => {
      try {
        serveDashboard(taken.addr.port, ok);
      } catch (e) {
        return e;
      }
    })();
    assert.ok(err instanceof DeployError);
    assert.equal(err.code, "port_in_use");
    assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${taken.addr.port}`));
    assert.match(err.hint, /analytics\.dashboard\.port/);
  } finally {
    taken.close();
  }
});
