import assert from "node:assert/strict";
import { join } from "node:path";
import { productOperations, REPO_ROOT } from "./product_operations.ts";

/** The `service:Operation` rows of the operations table of docs/aws-conformance.md. */
async function documentedOperations(): Promise<string[]> {
  const doc = await Deno.readTextFile(join(REPO_ROOT, "docs", "aws-conformance.md"));
  const section = doc.slice(doc.indexOf("## Where each operation ran"));
  const rows = section.split("\n").filter((l) => l.startsWith("| ")).map((l) =>
    l.split("|").slice(1, -1).map((c) => c.trim())
  );
  return rows.filter((r) => r.length === 5 && r[0] !== "service" && !r[0]!.startsWith("-")).map((
    r,
  ) => `${r[0]}:${r[1]}`);
}

Deno.test("product operations: every AWS client deploy/ and analytics/ import is counted, the KeyValueStore data plane too", async () => {
  const ops = await productOperations();
  for (const op of ["DescribeKeyValueStore", "ListKeys", "UpdateKeys"]) {
    assert.ok(ops.has(`cloudfront-keyvaluestore:${op}`), op);
  }
  assert.deepEqual([...ops.get("cloudfront-keyvaluestore:UpdateKeys")!], [
    "deploy/routing/rules_store_client.ts",
  ]);
  // The SDK waiter's GetDistribution counts as the product's call too.
  assert.ok(ops.get("cloudfront:GetDistribution")!.has("deploy/cdn/distribution_deployed.ts"));
});

Deno.test("docs/aws-conformance.md's operations table lists exactly the operations the product calls", async () => {
  const documented = await documentedOperations();
  assert.equal(new Set(documented).size, documented.length, "a row twice");
  assert.deepEqual(documented.sort(), [...(await productOperations()).keys()].sort());
});
