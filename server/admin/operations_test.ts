import assert from "node:assert/strict";
import { startTokenServer } from "../../tests/support/token_server.ts";
import type { OperatorPrincipal } from "../auth/operator_gate.ts";
import { createIdFactory } from "../store/ids.ts";
import { AdminOperations } from "./operations.ts";

const dora: OperatorPrincipal = { method: "operator_token", subject: "dora", peer: "127.0.0.1" };

Deno.test("AdminOperations.recordConsoleSession() writes the console's sign-in and sign-out records, naming the operator", async () => {
  await using te = await startTokenServer();
  const { deps } = te.server;
  const ops = new AdminOperations({ ...deps, ids: createIdFactory(deps.clock, deps.random) });
  await ops.recordConsoleSession(dora, "console.login");
  await ops.recordConsoleSession(dora, "console.logout");
  const trail = await deps.store.audit.list({ actor: "dora" }, 10);
  assert.deepEqual(trail.map((r) => [r.action, r.user, r.details]).reverse(), [
    ["console.login", undefined, { auth: "operator_token", peer: "127.0.0.1" }],
    ["console.logout", undefined, { auth: "operator_token", peer: "127.0.0.1" }],
  ]);
});
