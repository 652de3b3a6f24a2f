import assert from "node:assert/strict";
import postgres from "postgres";
import { startTestPostgres } from "../../tests/support/postgres.ts";
import { waitFor } from "../../tests/support/wait.ts";
import { isClosedSocketWrite, openPostgres } from "./pg_connection.ts";

Deno.test({
  name:
    "openPostgres(): the client's write after a killed connection leaves the process running on a fresh pool",
  // postgres.js schedules its own timers; the pool is ended at the end of the test.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using pg = await startTestPostgres();
    const url = await pg.schema("pool_fault");
    const faults: TypeError[] = [];
    const sql = openPostgres({ url, poolSize: 2, onFault: (err) => faults.push(err) });
    const killer = postgres(url, { max: 1, onnotice: () => {} });
    try {
      // A transaction whose backend dies mid-statement: postgres.js then writes its own ROLLBACK
      // to the closed socket from a setImmediate, the uncatchable TypeError of
      // porsager/postgres#1208 (deterministic on 3.4.9). Uncontained, the test run dies here.
      let pid: number | undefined;
      const tx = sql.begin(async (t) => {
        pid = (await t<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
        await t`select pg_sleep(5)`;
      });
      await waitFor(() => pid !== undefined, "the transaction to start");
      await killer`select pg_terminate_backend(${pid!})`;
      await assert.rejects(tx, /CONNECTION_CLOSED|terminating connection/);
      await waitFor(() => faults.length > 0, "the fault to be contained");
      assert.ok(isClosedSocketWrite(faults[0]));
      // The pool was replaced: the next queries run.
      for (let i = 0; i < 5; i++) {
        assert.deepEqual([...await sql`select ${i}::int as n`], [{ n: i }]);
      }
    } finally {
      await sql.end({ timeout: 1 });
      await killer.end();
    }
  },
});

Deno.test("isClosedSocketWrite() matches only postgres.js's nextWrite fault", () => {
  const fault = new TypeError("Cannot read properties of null (reading 'write')");
  fault.stack = `${fault.message}\n    at Immediate.nextWrite (file:///x/node_modules/.deno/` +
    `postgres@3.4.9/node_modules/postgres/src/connection.js:255:22)`;
  assert.equal(isClosedSocketWrite(fault), true);
  const elsewhere = new TypeError(fault.message);
  elsewhere.stack = `${fault.message}\n    at nextWrite (file:///app/server/mine.ts:1:1)`;
  assert.equal(isClosedSocketWrite(elsewhere), false);
  assert.equal(isClosedSocketWrite(new Error(fault.message)), false);
});
