import assert from "node:assert/strict";
import type { CommandContext } from "../command.ts";
import { warnRecordsNotRolledBack } from "./pds_stage.ts";

/** Just what the rollback warning reads: the env, the raw config and the warning channel. */
function context(env: string, pds: unknown) {
  const warnings: string[] = [];
  const ctx = {
    env,
    site: () => Promise.resolve({ config: { pds } }),
    out: { warn: (text: string) => warnings.push(text) },
  } as unknown as CommandContext;
  return { ctx, warnings };
}

Deno.test("warnRecordsNotRolledBack() warns a production rollback of a publishing site", async () => {
  const { ctx, warnings } = context("production", { name: "Blog" });
  await warnRecordsNotRolledBack(ctx);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /records were not rolled back: they follow the posts/);
});

Deno.test("warnRecordsNotRolledBack() says nothing without a pds section or outside production", async () => {
  for (const [env, pds] of [["production", undefined], ["staging", { name: "Blog" }]] as const) {
    const { ctx, warnings } = context(env, pds);
    await warnRecordsNotRolledBack(ctx);
    assert.deepEqual(warnings, []);
  }
});
