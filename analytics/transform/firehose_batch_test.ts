import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { transformBatch } from "./firehose_batch.ts";
import { envelope, PAGE_VIEW, TEST_SECRET } from "./_test_records.ts";

const unb64 = (data: string) => Buffer.from(data, "base64").toString("utf8");

Deno.test("transformBatch() answers every record once, in order, with its id", async () => {
  const event = envelope([
    JSON.stringify(PAGE_VIEW),
    "not json",
    JSON.stringify({ ...PAGE_VIEW, "c-ip": "-" }),
  ]);
  const { response, summary } = await transformBatch(event, () => Promise.resolve(TEST_SECRET));
  assert.deepEqual(response.records.map((r) => [r.recordId, r.result]), [
    ["r0", "Ok"],
    ["r1", "ProcessingFailed"],
    ["r2", "ProcessingFailed"],
  ]);
  const row = JSON.parse(unb64(response.records[0]!.data));
  assert.equal(row.uri, "/posts/hello/");
  assert.equal(row.visitor_key.length, 64);
  // A failed record is passed through unchanged, so the error bucket holds what arrived.
  assert.equal(response.records[1]!.data, event.records[1]!.data);
  assert.deepEqual(summary, { ok: 1, failed: 2, reasons: ["no c-ip", "the record is not JSON"] });
});

Deno.test("transformBatch() fails the whole batch when the secret cannot be read", async () => {
  const event = envelope([JSON.stringify(PAGE_VIEW)]);
  await assert.rejects(
    transformBatch(event, () => Promise.reject(new Error("AccessDeniedException"))),
    /AccessDeniedException/,
  );
  await assert.rejects(
    transformBatch(event, () => Promise.resolve(new Uint8Array(0))),
    /0 bytes, want 32/,
  );
});
