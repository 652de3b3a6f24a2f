import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createMemoryLogger } from "@org/shared";
import { createTransformHandler } from "./lambda_handler.ts";
import { envelope, PAGE_VIEW, TEST_SECRET } from "./_test_records.ts";

Deno.test("transform handler: maps a Firehose envelope and logs counts, never rows", async () => {
  const { log, lines } = createMemoryLogger();
  let reads = 0;
  const handler = createTransformHandler({
    readSecret: () => {
      reads += 1;
      return Promise.resolve(TEST_SECRET);
    },
    log,
  });
  const first = await handler(envelope([JSON.stringify(PAGE_VIEW), "{"]));
  await handler(envelope([JSON.stringify(PAGE_VIEW)]));
  assert.deepEqual(first.records.map((r) => r.result), ["Ok", "ProcessingFailed"]);
  const row = JSON.parse(Buffer.from(first.records[0]!.data, "base64").toString());
  assert.equal(row.day, "2026-11-23");
  assert.equal(reads, 1, "the secret is read once per container");
  const text = JSON.stringify(lines);
  assert.ok(!text.includes("203.0.113.9"));
  assert.ok(text.includes('"failed":1'));
});

Deno.test("transform handler: an unreadable secret fails the invocation and is retried next time", async () => {
  const { log, lines } = createMemoryLogger();
  let fail = true;
  const handler = createTransformHandler({
    readSecret: () =>
      fail ? Promise.reject(new Error("secret unavailable")) : Promise.resolve(TEST_SECRET),
    log,
  });
  await assert.rejects(handler(envelope([JSON.stringify(PAGE_VIEW)])), /secret unavailable/);
  fail = false;
  const ok = await handler(envelope([JSON.stringify(PAGE_VIEW)]));
  assert.equal(ok.records[0]!.result, "Ok");
  assert.ok(JSON.stringify(lines).includes("batch failed"));
});
