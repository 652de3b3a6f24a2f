import assert from "node:assert/strict";
import { DeployError } from "../errors.ts";
import { fromWire, JOB_FIELDS, JOB_WIRE_VERSION, type JobInput, toWire } from "./job_input.ts";
import { describeFields } from "./wire_codec.ts";

/** A job as the MicroVM builder sends it: source in the bucket, staged parts, a record. */
const JOB: JobInput = {
  buildId: "abc",
  source: { bucketKey: "build/abc.zip" },
  paths: { app: ".", dist: "dist" },
  maxDurationSeconds: 60,
  target: { bucket: "b", prefix: "site/", region: "us-east-1" },
  tags: { environment: "prod" },
  seo: { robots: "auto", sitemap: "auto" },
  production: false,
  origin: undefined,
  refresh: true,
  keepOutputDays: 30,
  retention: { previousDays: 7, now: "2026-05-01T00:00:00.000Z", kept: { stagedKey: "k" } },
  routing: { stagedKey: "build/abc.routing.json" },
  cache: { site: "blog", branch: "production" },
  buildEnv: { PUBLIC_API: "https://api.example.com" },
  buildSecrets: { CMS_TOKEN: "blog/cms" },
  record: {
    startedAt: "2026-05-01T00:00:00.000Z",
    source: "build/abc.zip",
    logGroup: "g",
    logStream: "s",
  },
};

/** The reason `fromWire` refuses a text with. */
function refusal(text: string): string {
  try {
    fromWire(text);
  } catch (err) {
    assert.ok(err instanceof DeployError);
    assert.equal(err.code, "build_failed");
    return err.message;
  }
  throw new Error("accepted");
}

const wire = (job: Record<string, unknown>) =>
  JSON.stringify({ version: JOB_WIRE_VERSION, ...job });

Deno.test("toWire() then fromWire() gives the same job back, wrapped or not", () => {
  assert.deepEqual(fromWire(toWire(JOB)), JOB);
  assert.deepEqual(fromWire(JSON.stringify({ payload: toWire(JOB) })), JOB);
  // The wire form is the job's own JSON: no renaming, an unknown origin left out.
  const sent = JSON.parse(toWire(JOB));
  assert.equal(sent.version, JOB_WIRE_VERSION);
  assert.equal("origin" in sent, false);
  assert.deepEqual(sent.target, JOB.target);
  assert.equal(
    fromWire(toWire({ ...JOB, origin: "https://x.example" })).origin,
    "https://x.example",
  );
});

Deno.test("fromWire() refuses a bad job with a DeployError naming the field", () => {
  assert.equal(refusal("{"), "bad build job: the job is not JSON");
  assert.equal(refusal("[]"), "bad build job: the job is not an object");
  assert.equal(refusal('{"version":1}'), "bad build job: unsupported job version 1");
  const { buildId: _, ...noId } = JOB;
  assert.equal(refusal(wire(noId)), "bad build job: buildId must be present");
  assert.match(refusal(wire({ ...JOB, buildId: "../x" })), /^bad build job: buildId must be/);
  assert.equal(
    refusal(wire({ ...JOB, target: { bucket: 1, prefix: "site/" } })),
    "bad build job: target.bucket must be a string",
  );
  assert.equal(
    refusal(wire({ ...JOB, sourceKey: "x" })),
    "bad build job: sourceKey must not be there (unknown field)",
  );
  assert.match(
    refusal(wire({ ...JOB, source: { nowhere: 1 } })),
    /^bad build job: source must be one of/,
  );
  assert.match(refusal(wire({ ...JOB, seo: { robots: "maybe", sitemap: "on" } })), /seo must be/);
  assert.match(
    refusal(wire({ ...JOB, keepOutputDays: 0 })),
    /keepOutputDays must be an integer of at least 1/,
  );
  assert.match(refusal(wire({ ...JOB, refresh: "yes" })), /refresh must be true or false/);
});

Deno.test("fromWire() checks the open-tab retention", () => {
  const retention = JOB.retention!;
  assert.deepEqual(fromWire(wire({ ...JOB, retention: { ...retention, kept: [] } })).retention, {
    ...retention,
    kept: [],
  });
  for (
    const [bad, rule] of [
      [{ ...retention, previousDays: -1 }, "retention.previousDays must be"],
      [{ ...retention, previousDays: 1.5 }, "retention.previousDays must be"],
      [{ ...retention, now: "yesterday" }, "retention.now must be an ISO 8601 time"],
      [{ ...retention, kept: { stagedKey: 1 } }, "retention.kept must be one of"],
      [{ kept: [], previousDays: 7 }, "retention.now must be present"],
      [null, "retention must be an object"],
    ] as const
  ) {
    assert.ok(refusal(wire({ ...JOB, retention: bad })).includes(rule), rule);
  }
});

Deno.test("fromWire() checks the cache scope and the build settings, which carry secret names only", () => {
  const { cache: _c, buildEnv: _e, buildSecrets: _s, ...plain } = JOB;
  assert.deepEqual(fromWire(wire(plain)), plain); // --no-cache, no build settings: left out
  assert.match(refusal(wire({ ...JOB, cache: { site: "blog" } })), /cache\.branch must be present/);
  assert.match(refusal(wire({ ...JOB, buildEnv: { A: 1 } })), /buildEnv\.A must be a string/);
  assert.match(refusal(wire({ ...JOB, buildSecrets: ["x"] })), /buildSecrets must be an object/);
  // What travels is the secret's name: the value is read where the build runs.
  assert.deepEqual(JSON.parse(toWire(JOB)).buildSecrets, { CMS_TOKEN: "blog/cms" });
});

Deno.test("every job field is described for the docs, nested fields expanded", () => {
  const rows = describeFields(JOB_FIELDS);
  assert.deepEqual(
    rows.filter((r) => !r.path.includes(".")).map((r) => r.path),
    Object.keys(JOB_FIELDS),
  );
  assert.ok(rows.some((r) => r.path === "target.region" && !r.required));
  assert.ok(rows.every((r) => r.doc.length > 0 && r.type.length > 0));
});

Deno.test("docs/deploy-builder.md's job table lists every described field", async () => {
  const docs = await Deno.readTextFile(new URL("../../docs/deploy-builder.md", import.meta.url));
  const documented = [...docs.matchAll(/^\| `([\w.]+)` +\|/gm)].map((m) => m[1]);
  const described = describeFields(JOB_FIELDS).map((r) => r.path);
  assert.deepEqual(described.filter((p) => !documented.includes(p)), [], "missing from the docs");
});
