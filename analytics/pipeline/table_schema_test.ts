import assert from "node:assert/strict";
import { ROW_COLUMNS } from "../transform/row.ts";
import type { IcebergTableMetadata } from "./iceberg_catalog.ts";
import { addColumnsCommit, schemaStatus } from "./table_schema.ts";

/** A table made before the new columns: the first 20, as the first release created it. */
function oldTable(): IcebergTableMetadata {
  const fields = ROW_COLUMNS.slice(0, 20).map((c, i) => ({
    id: i + 1,
    name: c.name,
    type: c.type,
    required: c.required,
  }));
  return {
    "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1",
    "current-schema-id": 0,
    "last-column-id": 20,
    schemas: [{ type: "struct", "schema-id": 0, fields }],
  };
}

Deno.test("schemaStatus() names the columns an older table lacks", () => {
  assert.deepEqual(schemaStatus(oldTable()), {
    id: 0,
    missing: [
      "browser",
      "browser_version",
      "os",
      "device",
      "utm_source",
      "utm_medium",
      "utm_campaign",
      "channel",
      "bot_category",
      "bot_name",
      "feed_subscribers",
    ],
  });
});

Deno.test("addColumnsCommit() adds the missing columns as optional fields after the last id, guarded", () => {
  const commit = addColumnsCommit(oldTable())!;
  assert.deepEqual(commit.requirements, [
    { type: "assert-table-uuid", uuid: "9c12d441-03fe-4693-9a96-a0705ddf69c1" },
    { type: "assert-current-schema-id", "current-schema-id": 0 },
    { type: "assert-last-assigned-field-id", "last-assigned-field-id": 20 },
  ]);
  const [add, set] = commit.updates;
  assert.deepEqual(set, { action: "set-current-schema", "schema-id": -1 });
  assert.ok(add?.action === "add-schema");
  assert.equal(add.schema["schema-id"], 1);
  const fields = add.schema.fields;
  assert.deepEqual(fields.slice(0, 20), oldTable().schemas[0]!.fields, "old fields untouched");
  assert.deepEqual(fields.slice(20).map((f) => [f.id, f.name, f.type, f.required]), [
    [21, "browser", "string", false],
    [22, "browser_version", "int", false],
    [23, "os", "string", false],
    [24, "device", "string", false],
    [25, "utm_source", "string", false],
    [26, "utm_medium", "string", false],
    [27, "utm_campaign", "string", false],
    [28, "channel", "string", false],
    [29, "bot_category", "string", false],
    [30, "bot_name", "string", false],
    [31, "feed_subscribers", "int", false],
  ]);
});

Deno.test("addColumnsCommit() keeps columns the transform no longer names, and numbers after dropped ids", () => {
  const old = oldTable();
  const extra = { id: 40, name: "legacy", type: "string", required: false };
  const table: IcebergTableMetadata = {
    ...old,
    "current-schema-id": 3,
    "last-column-id": 41,
    schemas: [{ ...old.schemas[0]!, "schema-id": 3, fields: [...old.schemas[0]!.fields, extra] }],
  };
  const add = addColumnsCommit(table)!.updates[0]!;
  assert.ok(add.action === "add-schema");
  assert.equal(add.schema["schema-id"], 4);
  assert.equal(add.schema.fields[20], extra);
  assert.equal(add.schema.fields[21]!.id, 42);
});

Deno.test("addColumnsCommit() is null for a table that has every column", () => {
  const fields = ROW_COLUMNS.map((c, i) => ({ id: i + 1, ...c }));
  const table = { ...oldTable(), schemas: [{ type: "struct" as const, "schema-id": 0, fields }] };
  assert.equal(addColumnsCommit(table), null);
  assert.deepEqual(schemaStatus(table), { id: 0, missing: [] });
});
