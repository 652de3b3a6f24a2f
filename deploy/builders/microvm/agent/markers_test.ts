import assert from "node:assert/strict";
import { doneMarker, failedMarker, parseMarker } from "./markers.ts";

Deno.test("markers: done and failed lines round-trip for their build only", () => {
  assert.equal(doneMarker("abc"), "build:done:abc");
  assert.deepEqual(parseMarker("build:done:abc", "abc"), { kind: "done", id: "abc" });
  assert.equal(parseMarker("build:done:abcd", "abc"), undefined);
  assert.equal(parseMarker("build:done:other", "abc"), undefined);
  const line = failedMarker("abc", "npm failed\n  exit 1");
  assert.equal(line, "build:failed:abc:npm failed exit 1");
  assert.deepEqual(parseMarker(line, "abc"), {
    kind: "failed",
    id: "abc",
    reason: "npm failed exit 1",
  });
  assert.equal(parseMarker("compiling build:done:abc", "abc"), undefined);
});
