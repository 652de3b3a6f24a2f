import assert from "node:assert/strict";
import { DeployError } from "../errors.ts";
import { scopedStateKey } from "./bucket_layout.ts";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { startS3, testAwsConfig } from "../../tests/support/s3.ts";
import { buildScopedState, parseScopedState, scopedStateNamespaces } from "./scoped_state.ts";

Deno.test("scopedStateKey() puts a plugin's state beside the environment's", () => {
  assert.equal(scopedStateKey("production", "analytics"), "state/production.analytics.json");
});

Deno.test("buildScopedState() keeps the first createdAt and stamps updatedAt", () => {
  const at = { env: "staging", namespace: "analytics" };
  const first = buildScopedState(at, "123456789012", {}, new Date("2026-11-23T10:00:00Z"));
  const nodes = { stream: { outputs: { name: "s" }, updatedAt: "2026-11-24T10:00:00.000Z" } };
  const next = buildScopedState(at, "123456789012", nodes, new Date("2026-11-24T10:00:00Z"), first);
  assert.deepEqual(next, {
    version: 1,
    env: "staging",
    namespace: "analytics",
    accountId: "123456789012",
    nodes,
    createdAt: "2026-11-23T10:00:00.000Z",
    updatedAt: "2026-11-24T10:00:00.000Z",
  });
  assert.deepEqual(parseScopedState(JSON.parse(JSON.stringify(next)), "x", "b"), next);
});

Deno.test("parseScopedState() refuses what is not a scoped state, naming the fix", () => {
  for (const value of [null, [], { version: 2 }, { version: 1, env: "p", namespace: "a" }]) {
    assert.throws(
      () => parseScopedState(value, "s3://b/state/p.analytics.json", "deploy analytics bootstrap"),
      (err: unknown) =>
        err instanceof DeployError && err.code === "state_invalid" &&
        err.hint ===
          "run `deploy analytics bootstrap` to rewrite it (it adopts the existing resources)",
    );
  }
});

Deno.test("scopedStateNamespaces() lists the plugins with state for one environment only, not the core's own", async () => {
  await using s3rver = await startS3(["site"]);
  const s3 = new S3Client({ ...testAwsConfig, endpoint: s3rver.endpoint, forcePathStyle: true });
  try {
    for (
      const key of [
        "state/production.json",
        "state/production.analytics.json",
        "state/staging.analytics.json",
        "state/production.other.json",
        "state/production.invalidation.json",
        "state/production.kept.json",
        "site/state/production.x.json",
      ]
    ) {
      await s3.send(new PutObjectCommand({ Bucket: "site", Key: key, Body: "{}" }));
    }
    assert.deepEqual(await scopedStateNamespaces(s3, "site", "production"), [
      "analytics",
      "other",
    ]);
    assert.deepEqual(await scopedStateNamespaces(s3, "site", "dev"), []);
  } finally {
    s3.destroy();
  }
});
