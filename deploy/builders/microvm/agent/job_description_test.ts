import assert from "node:assert/strict";
import { doneMarker, failedMarker, parseAgentJob, parseMarker } from "./job_description.ts";

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

/** A well-formed job. */
const JOB = {
  version: 1,
  buildId: "abc",
  bucket: "b",
  region: "us-east-1",
  sourceKey: "build/abc.zip",
  prefix: "site/",
  paths: { app: ".", dist: "dist" },
  seo: { robots: "auto", sitemap: "auto" },
  isProduction: false,
  origin: null,
  tags: {},
  maxDurationSeconds: 60,
  startedAt: "2026-05-01T00:00:00.000Z",
  logGroup: "g",
  logStream: "s",
};

Deno.test("parseAgentJob() names the first missing field and accepts a wrapped payload", () => {
  assert.deepEqual(parseAgentJob("{"), { error: "the job is not JSON" });
  assert.deepEqual(parseAgentJob('{"version":2}'), { error: "unsupported job version 2" });
  assert.deepEqual(parseAgentJob('{"version":1}'), { error: "the job has no buildId" });
  assert.ok("job" in parseAgentJob(JSON.stringify(JOB)));
  assert.ok("job" in parseAgentJob(JSON.stringify({ payload: JSON.stringify(JOB) })));
  assert.deepEqual(parseAgentJob(JSON.stringify({ ...JOB, buildId: "../x" })), {
    error: "the build id has bad characters",
  });
});

Deno.test("parseAgentJob() carries the open-tab retention and refuses a malformed one", () => {
  const retention = { keptKey: "build/abc.kept.json", previousDays: 7, now: JOB.startedAt };
  const parsed = parseAgentJob(JSON.stringify({ ...JOB, retention }));
  assert.ok("job" in parsed);
  assert.deepEqual(parsed.job.retention, retention);
  const { keptKey: _, ...nothingKept } = retention;
  assert.ok("job" in parseAgentJob(JSON.stringify({ ...JOB, retention: nothingKept })));
  for (
    const bad of [
      { ...retention, previousDays: -1 },
      { ...retention, previousDays: 1.5 },
      { ...retention, now: "yesterday" },
      { ...retention, keptKey: 1 },
      { keptKey: "k", previousDays: 7 },
      null,
    ]
  ) {
    assert.deepEqual(parseAgentJob(JSON.stringify({ ...JOB, retention: bad })), {
      error: "bad retention",
    });
  }
});
