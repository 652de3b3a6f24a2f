import assert from "node:assert/strict";
import { ROW_COLUMNS } from "../../transform/row.ts";
import { ANALYTICS_GRAPH } from "../graph.ts";
import { tableMetadata } from "./table.ts";

Deno.test("tableMetadata() is the row's columns, numbered, partitioned by day", () => {
  const meta = tableMetadata();
  assert.deepEqual(meta.schema?.fields?.map((f) => [f.id, f.name, f.type, f.required]), [
    ...ROW_COLUMNS.map((c, i) => [i + 1, c.name, c.type, c.required]),
  ]);
  assert.deepEqual(meta.partitionSpec, {
    fields: [{ sourceId: 2, transform: "identity", name: "day" }],
  });
  assert.ok(!meta.schema?.fields?.some((f) => /ip|cookie|forwarded/.test(f.name ?? "")));
});

Deno.test("bootstrap evolves the table before it deploys the transform that writes the new columns", () => {
  const order = ANALYTICS_GRAPH.map((n) => n.id);
  assert.ok(order.indexOf("table") < order.indexOf("transform"));
  assert.ok(order.indexOf("table") < order.indexOf("stream"));
});
