import assert from "node:assert/strict";
import { parsePreviewRecord, previewRecord } from "./record.ts";

Deno.test("preview record: what a deploy writes, list and prune read back", () => {
  const record = previewRecord({
    id: "pr-42",
    url: "https://pr-42.preview.example.com",
    revision: "3f2a1b9c8d7e",
    deployedAt: new Date("2026-11-23T12:00:00Z"),
  });
  assert.deepEqual(parsePreviewRecord(JSON.stringify(record)), { record });
  assert.equal(record.deployedAt, "2026-11-23T12:00:00.000Z");
});

Deno.test("parsePreviewRecord() says why a stored object is not a record", () => {
  assert.deepEqual(parsePreviewRecord("{"), { error: "not JSON" });
  assert.deepEqual(parsePreviewRecord("[]"), { error: "not an object" });
  assert.deepEqual(parsePreviewRecord('{"version":2}'), { error: "unknown version 2" });
  assert.deepEqual(parsePreviewRecord('{"version":1,"id":"pr-1"}'), { error: "url missing" });
  assert.deepEqual(
    parsePreviewRecord('{"version":1,"id":"a","url":"u","revision":"r","deployedAt":"soon"}'),
    { error: "deployedAt not a date" },
  );
});
