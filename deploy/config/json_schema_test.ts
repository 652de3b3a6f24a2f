import assert from "node:assert/strict";
import { SCHEMA_FILE, siteJsonSchema, siteJsonSchemaText } from "./json_schema.ts";

Deno.test("committed deploy/config.schema.json equals the generated schema (run `deno task schema`)", async () => {
  const committed = await Deno.readTextFile(new URL(`../${SCHEMA_FILE}`, import.meta.url));
  assert.deepEqual(JSON.parse(committed), JSON.parse(siteJsonSchemaText()));
});

Deno.test("JSON Schema carries the spec's defaults, enums and ranges", () => {
  const schema = siteJsonSchema();
  const props = schema.properties as Record<string, Record<string, unknown>>;
  assert.deepEqual(schema.required, ["siteName"]);
  assert.equal(schema.additionalProperties, false);
  assert.ok("$schema" in props);
  assert.equal(props.siteName?.pattern, "^[a-z0-9-]+$");
  assert.equal(props.region?.default, "us-east-1");
  const microvm = props.microvm?.properties as Record<string, Record<string, unknown>>;
  assert.deepEqual(microvm.memory, {
    description: "Builder memory in GB.",
    enum: [0.5, 1, 2, 4, 8],
    default: 4,
  });
  assert.equal(microvm.maxDurationSeconds?.minimum, 1);
  assert.equal(microvm.maxDurationSeconds?.maximum, 28800);
  assert.deepEqual(props.sourceIgnore?.default, [
    ".jj/",
    ".git/",
    "node_modules/",
    "dist/",
    ".astro/",
  ]);
  const analytics = props.analytics?.properties as Record<string, Record<string, unknown>>;
  assert.equal(analytics.dashboard?.additionalProperties, false);
});
